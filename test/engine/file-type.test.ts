import { describe, expect, it } from 'vitest';
import { detectType, looksLikeText } from '../../src/engine/file-type.js';

describe('detectType', () => {
  const pe = Buffer.alloc(128);
  pe.write('MZ', 0, 'latin1');
  pe.writeUInt32LE(0x80, 0x3c);
  const tar = Buffer.alloc(512);
  tar.write('ustar', 257, 'latin1');
  it.each([
    ['elf', Buffer.from('\x7fELF\x01\x01\x01', 'latin1')],
    ['pe', pe],
    ['gzip', Buffer.from([0x1f, 0x8b, 8, 0])],
    ['xz', Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0])],
    ['tar', tar],
    ['squashfs', Buffer.from('hsqs\0\0\0\0', 'latin1')],
    ['script', Buffer.from('#!/bin/sh\necho hi\n')],
    ['certificate-pem', Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n')],
    ['private-key-pem', Buffer.from('-----BEGIN RSA PRIVATE KEY-----\nMIIE\n')],
    ['public-key-pem', Buffer.from('-----BEGIN PUBLIC KEY-----\nMIIB\n')],
    ['json', Buffer.from('{"a": 1}')],
    ['xml', Buffer.from('<?xml version="1.0"?><a/>')],
    ['text', Buffer.from('root:x:0:0:root:/root:/bin/sh\n')],
    ['der', Buffer.from([0x30, 0x82, 0x01, 0x0a, 0x30, 0x82])],
    ['empty', Buffer.alloc(0)],
    ['data', Buffer.from([0, 1, 2, 3, 0xff, 0xfe])],
  ])('%s', (type, head) => {
    expect(detectType(head)).toBe(type);
  });

  const at = (offset: number, magic: string, fill = 0, size = 512) => {
    const head = Buffer.alloc(size, fill);
    head.write(magic, offset, 'latin1');
    return head;
  };
  it.each([
    ['uefi-fv', at(40, '_FVH')],
    ['elf', at(40, '_FVH', 0, 64).fill(0x7f, 0, 1).fill(0x45, 1, 2).fill(0x4c, 2, 3).fill(0x46, 3, 4)], // the first magic wins
    ['tar', at(257, 'ustar', 0x31)],
    ['lzma', Buffer.from([0x5d, 0, 0, 0x80, 0, 1, 2])],
    ['cpio', Buffer.from('070701000', 'latin1')],
    ['jffs2', Buffer.from([0x85, 0x19, 3, 0])],
    ['sqlite', Buffer.from('SQLite format 3\0rest', 'latin1')],
    ['png', Buffer.from('89504e470d0a1a0a0000', 'hex')],
    ['mach-o', Buffer.from('cffaedfe07000001', 'hex')],
    ['pgp-key', Buffer.from('-----BEGIN PGP PUBLIC KEY BLOCK-----\n')],
    ['csr-pem', Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\n')],
    ['pem', Buffer.from('comment first\n-----BEGIN DH PARAMETERS-----\n')],
    ['html', Buffer.from('  <!DOCTYPE html><p>')],
    ['text', Buffer.from('-----BEGIN without its dashes\n')],
  ])('%s, by the first matching magic or the text', (type, head) => {
    expect(detectType(head)).toBe(type);
  });

  it('does not take a bare MZ for a PE', () => {
    const fake = Buffer.alloc(128, 0);
    fake.write('MZ', 0, 'latin1');
    expect(detectType(fake)).toBe('data');
  });

  it('treats control-heavy bytes as binary', () => {
    expect(looksLikeText(Buffer.from('abc\x01\x02\x03\x04'))).toBe(false);
    expect(looksLikeText(Buffer.from('plain words\n'))).toBe(true);
  });
});

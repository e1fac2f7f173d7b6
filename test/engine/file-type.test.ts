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

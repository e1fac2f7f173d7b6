import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { lzo1xDecompress } from '../../../../src/engine/unpack/codecs/lzo.js';
import { FormatError } from '../../../../src/engine/format-error.js';
import { needCommands } from '../../../support/requirements.js';

const haveLzop = needCommands(['lzop'], 'the lzop round-trip tests');

/** Splits an .lzo file (lzop's container) into its blocks: [compressed bytes, decoded size]. */
function lzopBlocks(file: Buffer): Array<{ data: Buffer; size: number; stored: boolean }> {
  expect(file.subarray(0, 9).equals(Buffer.from([0x89, 0x4c, 0x5a, 0x4f, 0, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  const version = file.readUInt16BE(9);
  let at = 13;
  if (version >= 0x0940) at += 2; // version needed to extract
  at += 1; // method
  if (version >= 0x0940) at += 1; // level
  const flags = file.readUInt32BE(at);
  at += 4;
  if (flags & 0x800) at += 4; // filter
  at += 8; // mode, mtime low
  if (version >= 0x0940) at += 4; // mtime high
  at += 1 + file[at]! + 4; // name, header checksum
  const blocks: Array<{ data: Buffer; size: number; stored: boolean }> = [];
  for (;;) {
    const size = file.readUInt32BE(at);
    if (size === 0) return blocks;
    const csize = file.readUInt32BE(at + 4);
    at += 8;
    if (flags & 0x001) at += 4; // adler32 of the decoded data
    if (flags & 0x100) at += 4; // crc32 of the decoded data
    if (csize < size) {
      if (flags & 0x002) at += 4;
      if (flags & 0x200) at += 4;
    }
    blocks.push({ data: file.subarray(at, at + csize), size, stored: csize === size });
    at += csize;
  }
}

function text(length: number): Buffer {
  const words = ['firmware', 'squashfs', 'router', 'kernel', 'busybox', '/etc/passwd', 'lzo', '0123456789'];
  const parts: string[] = [];
  let x = 7;
  let n = 0;
  while (n < length) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const w = words[x % words.length]! + (x % 3 === 0 ? '\n' : ' ');
    parts.push(w);
    n += w.length;
  }
  return Buffer.from(parts.join('')).subarray(0, length);
}

describe('lzo1x decompressor', () => {
  it('decodes hand-built streams: literals, an overlapping match, the end marker', () => {
    expect(lzo1xDecompress(Buffer.from([0x11, 0, 0]), 16)).toHaveLength(0);
    expect(lzo1xDecompress(Buffer.from([22, ...Buffer.from('hello'), 0x11, 0, 0]), 16).toString()).toBe('hello');
    // 3 literals, then a 6-byte copy from distance 3 (opcode 0b101_010_00), then the end marker.
    const overlap = Buffer.from([20, 0x61, 0x62, 0x63, 0xa8, 0x00, 0x11, 0, 0]);
    expect(lzo1xDecompress(overlap, 16).toString()).toBe('abcabcabc');
  });

  it('refuses truncated input, distances before the start, oversize output and trailing bytes', () => {
    const bad = (bytes: number[], max = 64) => () => lzo1xDecompress(Buffer.from(bytes), max);
    expect(bad([22, 0x68, 0x65])).toThrow(FormatError);
    expect(bad([20, 0x61, 0x62, 0x63, 0xa8])).toThrow(/truncated/);
    expect(bad([20, 0x61, 0x62, 0x63, 0xa8, 0x01, 0x11, 0, 0])).toThrow(/distance/);
    expect(bad([20, 0x61, 0x62, 0x63, 0xa8, 0x00, 0x11, 0, 0], 5)).toThrow(/larger/);
    expect(bad([0x11, 0, 0, 0x55])).toThrow(/after the end/);
    expect(bad([])).toThrow(FormatError);
  });

  it.runIf(haveLzop).each([['-1'], ['-9']])('decodes every block lzop %s writes (lzo1x_1 and lzo1x_999)', (level) => {
    const input = Buffer.concat([text(300_000), Buffer.alloc(70_000), text(50_000)]);
    const file = execFileSync('lzop', [level, '-c'], { input, maxBuffer: 16 << 20 });
    const out: Buffer[] = [];
    for (const block of lzopBlocks(file)) out.push(block.stored ? block.data : lzo1xDecompress(block.data, block.size));
    expect(Buffer.concat(out).equals(input)).toBe(true);
  });

  it.runIf(haveLzop)('never throws anything but FormatError on corrupted blocks', () => {
    const input = text(200_000);
    const [block] = lzopBlocks(execFileSync('lzop', ['-c'], { input, maxBuffer: 16 << 20 }));
    for (let seed = 1; seed <= 300; seed++) {
      const bad = Buffer.from(block!.data);
      bad[(seed * 7919) % bad.length] ^= seed & 0xff || 1;
      try {
        lzo1xDecompress(bad.subarray(0, bad.length - (seed % 5)), block!.size);
      } catch (error) {
        expect(error).toBeInstanceOf(FormatError);
      }
    }
  });
});

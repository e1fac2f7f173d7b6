// declaredXzSize (codecs/xz-declared.ts): which in-memory xz streams bound their own output, so that xz() gives
// them to liblzma in one call; and that such a call decodes as the stepped one does, and still fails, with a
// FormatError, on a stream whose output passes what its Block declares.
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../../src/engine/format-error.js';
import { xz } from '../../../../src/engine/unpack/codecs/blocks.js';
import { decodeLzma, decodeLzmaSync } from '../../../../src/engine/unpack/codecs/lzma.js';
import { declaredXzSize } from '../../../../src/engine/unpack/codecs/xz-declared.js';
import { compressWith } from '../handler-harness.js';

// compressible and not: 40 KiB of text, 20 KiB of noise (about a SquashFS block's mix)
const data = Buffer.concat([Buffer.from('firmscope squashfs block '.repeat(1600)), randomBytes(20000)]);
/** As mksquashfs writes a block: multi-threaded xz stores both sizes in each Block Header. */
const declared = compressWith('xz', ['-c', '-T2', '--block-size=1MiB'], data);
/** As single-threaded xz writes a stream: sizes unknown until its Index. */
const undeclared = compressWith('xz', ['-c', '-T1'], data);

/** The stream with its Block's Uncompressed Size VLI rewritten to `size` (same byte length) and the header's CRC32 fixed. */
function withDeclaredSize(stream: Buffer, size: number): Buffer {
  const out = Buffer.from(stream);
  const headerSize = (out[12]! + 1) * 4;
  let at = 14;
  while (out[at]! & 0x80) at++; // Compressed Size
  at++;
  const start = at;
  while (out[at]! & 0x80) at++; // Uncompressed Size
  const length = at + 1 - start;
  for (let i = 0, rest = size; i < length; i++, rest = Math.floor(rest / 128)) out[start + i] = (rest & 0x7f) | (i < length - 1 ? 0x80 : 0);
  out.writeUInt32LE(zlib.crc32(out.subarray(12, 12 + headerSize - 4)) >>> 0, 12 + headerSize - 4);
  return out;
}

describe('declaredXzSize', () => {
  it('gives the size a single-Block stream declares, as mksquashfs and multi-threaded xz write them', () => {
    expect(declaredXzSize(declared, 1 << 20)).toBe(data.length);
  });

  it('gives nothing for a stream that does not declare it, or declares more than the caller takes', () => {
    expect(declaredXzSize(undeclared, 1 << 20)).toBeUndefined();
    expect(declaredXzSize(declared, data.length - 1)).toBeUndefined();
  });

  it('gives nothing when the input holds more than one Block, trailing bytes or something else', () => {
    const twoBlocks = compressWith('xz', ['-c', '-T2', '--block-size=16KiB'], data);
    expect(declaredXzSize(twoBlocks, 1 << 20)).toBeUndefined();
    expect(declaredXzSize(Buffer.concat([declared, Buffer.alloc(4)]), 1 << 20)).toBeUndefined();
    expect(declaredXzSize(Buffer.concat([declared, declared]), 1 << 20)).toBeUndefined();
    expect(declaredXzSize(declared.subarray(0, declared.length - 1), 1 << 20)).toBeUndefined();
    expect(declaredXzSize(randomBytes(100), 1 << 20)).toBeUndefined();
    expect(declaredXzSize(Buffer.alloc(0), 1 << 20)).toBeUndefined();
  });
});

describe('xz() of a stream that declares its sizes (one call to liblzma)', () => {
  it('decodes it as the stream without them', async () => {
    expect((await xz(declared, 1 << 20)).equals(data)).toBe(true);
    expect((await xz(undeclared, 1 << 20)).equals(data)).toBe(true);
  });

  it('fails with a FormatError when the Block yields more than it declares', async () => {
    const lying = withDeclaredSize(declared, 20000); // (a VLI as long as the real size's: three bytes)
    expect(declaredXzSize(lying, 1 << 20)).toBe(20000);
    await expect(xz(lying, 1 << 20)).rejects.toBeInstanceOf(FormatError);
  });

  it('decodes it alike with its enforced size given, on the calling thread and on the pool', async () => {
    const options = { enforcedOutput: data.length };
    expect(decodeLzmaSync('xz', { kind: 'xz', single: true }, declared, 1 << 20, options).equals(data)).toBe(true);
    expect((await decodeLzma('xz', { kind: 'xz', single: true }, declared, 1 << 20, options)).equals(data)).toBe(true);
  });

  it('is stopped by liblzma itself at the declared size, not after the whole input (a bomb in one call)', async () => {
    // 16 MiB of zeros in ~3 KB, declaring 2.1 MB (a VLI as long as 16 MiB's: four bytes)
    const bomb = withDeclaredSize(compressWith('xz', ['-c', '-T2', '--block-size=128MiB'], Buffer.alloc(16 << 20)), 2_100_000);
    expect(declaredXzSize(bomb, 4 << 20)).toBe(2_100_000);
    const failure = await xz(bomb, 4 << 20).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(FormatError);
    // liblzma's data error, not the engine's cap on 4 MiB of output: the call stopped near the declared size
    expect((failure as Error).message).not.toMatch(/exceeds/);
  });

  it('fails with a FormatError when the Block yields less than it declares', async () => {
    const lying = withDeclaredSize(declared, data.length + 1);
    expect(declaredXzSize(lying, 1 << 20)).toBe(data.length + 1);
    await expect(xz(lying, 1 << 20)).rejects.toBeInstanceOf(FormatError);
  });
});

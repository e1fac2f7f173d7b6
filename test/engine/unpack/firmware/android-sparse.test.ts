import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { androidSparseHandler } from '../../../../src/engine/unpack/firmware/android-sparse.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { expectTruncationsRefused, runHandler } from '../extract-harness.js';

const work = mkdtempSync(join(tmpdir(), 'sparse-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A raw image of data, zero and pattern blocks, made sparse by AOSP's img2simg. */
function build(): { raw: Buffer; sparse: Buffer } {
  const block = (fill: (i: number) => number) => Buffer.from(Array.from({ length: 4096 }, (_, i) => fill(i)));
  const raw = Buffer.concat([
    block((i) => (i * 31) % 256),
    block(() => 0),
    block(() => 0),
    block((i) => [0xde, 0xad, 0xbe, 0xef][i % 4]!),
    block((i) => (i * 7 + 3) % 251),
    block(() => 0),
  ]);
  writeFileSync(join(work, 'raw.img'), raw);
  execFileSync('img2simg', [join(work, 'raw.img'), join(work, 'sparse.img'), '4096'], { stdio: 'pipe' });
  return { raw, sparse: readFileSync(join(work, 'sparse.img')) };
}

describe('android-sparse', () => {
  it('expands an img2simg image back to the raw image', async () => {
    const { raw, sparse } = build();
    const out = await runHandler(androidSparseHandler, new BufferReader(Buffer.concat([sparse, Buffer.alloc(16, 0xaa)])));
    expect(out.chunk).toMatchObject({ start: 0, end: sparse.length, meta: { blockSize: 4096, totalBlocks: 6 } });
    // img2simg used fill chunks for the zero and pattern blocks, so every chunk kind but CRC is exercised.
    expect(new Set((out.chunk.meta!.chunks as Array<{ type: number }>).map((c) => c.type))).toEqual(new Set([0xcac1, 0xcac2]));
    expect(await out.read('image.raw')).toEqual(raw);
    await out.cleanup();
  });

  it('expands don\'t-care chunks to zeros and skips CRC chunks', async () => {
    const header = Buffer.alloc(28);
    header.writeUInt32LE(0xed26ff3a, 0);
    header.writeUInt16LE(1, 4);
    header.writeUInt16LE(28, 8);
    header.writeUInt16LE(12, 10);
    header.writeUInt32LE(1024, 12);
    header.writeUInt32LE(3, 16);
    header.writeUInt32LE(3, 20);
    const chunk = (type: number, blocks: number, data: Buffer) => {
      const c = Buffer.alloc(12);
      c.writeUInt16LE(type, 0);
      c.writeUInt32LE(blocks, 4);
      c.writeUInt32LE(12 + data.length, 8);
      return Buffer.concat([c, data]);
    };
    const data = Buffer.alloc(1024, 0x5a);
    const image = Buffer.concat([header, chunk(0xcac1, 1, data), chunk(0xcac3, 2, Buffer.alloc(0)), chunk(0xcac4, 0, Buffer.alloc(4))]);
    const out = await runHandler(androidSparseHandler, new BufferReader(image));
    expect(await out.read('image.raw')).toEqual(Buffer.concat([data, Buffer.alloc(2048)]));
    await out.cleanup();
  });

  it('rejects truncated and inconsistent images with a reason', async () => {
    const { sparse } = build();
    await expect(androidSparseHandler.chunk(new BufferReader(sparse.subarray(0, sparse.length - 100)), 0)).rejects.toThrow(/truncated/);
    await expectTruncationsRefused(androidSparseHandler, sparse);
    const wrongCount = Buffer.from(sparse);
    wrongCount.writeUInt32LE(7, 16);
    await expect(androidSparseHandler.chunk(new BufferReader(wrongCount), 0)).rejects.toThrow(/header says 7/);
    const badType = Buffer.from(sparse);
    badType.writeUInt16LE(0x1234, 28);
    await expect(androidSparseHandler.chunk(new BufferReader(badType), 0)).rejects.toThrow(/unknown type/);
  });
});

import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../../src/engine/format-error.js';
import { decodeLzmaStream } from '../../../../src/engine/unpack/compression/lzma-stream-decode.js';
import type { LzmaCoder } from '../../../../src/engine/unpack/codecs/lzma.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { compressibleBytes, pseudoRandom } from '../../../support/bytes.js';
import { compressWith } from '../handler-harness.js';

const alone: LzmaCoder = { kind: 'alone' };

/** 32 MiB that LZMA packs about a hundred to one: in every 64 KiB, 640 random bytes, then zeros. */
let sparse: { data: Buffer; packed: Buffer } | undefined;
function sparseStream(): { data: Buffer; packed: Buffer } {
  if (sparse) return sparse;
  const data = Buffer.alloc(32 * 1024 * 1024);
  for (let at = 0; at < data.length; at += 64 * 1024) pseudoRandom(640, at + 1).copy(data, at);
  return (sparse = { data, packed: compressWith('xz', ['--format=lzma', '-1', '-c'], data) });
}

/** Bytes after a stream, so that more than a mebibyte of input follows its start: it is decoded on the thread. */
const AFTER = pseudoRandom(1024 * 1024 + 100, 77);

/** Every block the decode yields and what it returns. */
async function collect(blocks: AsyncGenerator<Buffer, number>): Promise<{ blocks: Buffer[]; consumed: number }> {
  const out: Buffer[] = [];
  for (;;) {
    const next = await blocks.next();
    if (next.done) return { blocks: out, consumed: next.value };
    out.push(next.value);
  }
}

describe('LZMA and xz streams decoded on their own thread (long inputs) or in a Node stream (short ones)', () => {
  it('gives the stream and the exact input it took, with other bytes around it', async () => {
    // 1.3 MB of input: several pieces on the thread; with 5000 bytes after it, too short for the thread
    const data = Buffer.concat([compressibleBytes(3_000_000), pseudoRandom(1_300_000, 5)]);
    const packed = compressWith('xz', ['--format=lzma', '-c'], data);
    for (const after of [AFTER, pseudoRandom(5000, 3)]) {
      const image = Buffer.concat([pseudoRandom(100, 2), packed, after]);
      const { blocks, consumed } = await collect(decodeLzmaStream('lzma', alone, new BufferReader(image), 100));
      // liblzma's xz writes -1 (unknown size) and an end marker: the decoder stops at the marker
      expect(consumed).toBe(packed.length);
      expect(Buffer.concat(blocks).equals(data)).toBe(true);
    }
  });

  it('ends an xz stream with its first stream when told to', async () => {
    const one = compressWith('xz', ['-c'], compressibleBytes(200_000, 4));
    const two = compressWith('xz', ['-c'], compressibleBytes(1000, 5));
    for (const after of [AFTER, Buffer.alloc(0)]) {
      const { blocks, consumed } = await collect(decodeLzmaStream('xz', { kind: 'xz', single: true }, new BufferReader(Buffer.concat([one, two, after])), 0));
      expect(consumed).toBe(one.length);
      expect(Buffer.concat(blocks).equals(compressibleBytes(200_000, 4))).toBe(true);
    }
  });

  it('hands a stream that expands a hundred times over in bounded blocks, the thread keeping the input', async () => {
    const { data, packed } = sparseStream(); // each 16 KiB step of input gives about 1.5 MB
    const { blocks, consumed } = await collect(decodeLzmaStream('lzma', alone, new BufferReader(Buffer.concat([packed, AFTER])), 0));
    expect(consumed).toBe(packed.length);
    expect(Buffer.concat(blocks).equals(data)).toBe(true);
    // a call stops once 4 MiB came out: at most one step's output more
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    for (const block of blocks) expect(block.length).toBeLessThan(6 * 1024 * 1024);
    // (a call's output comes as one block: lzma-native's Node stream hands out pieces of 64 KiB at most)
    expect(blocks.some((block) => block.length > 1024 * 1024)).toBe(true);
  });

  it('says a cut stream is truncated, after what it decoded', async () => {
    const data = Buffer.concat([compressibleBytes(500_000, 6), pseudoRandom(2_500_000, 6)]); // packs to more than 2 MB
    const packed = compressWith('xz', ['--format=lzma', '-c'], data);
    const cut = packed.subarray(0, Math.floor(packed.length / 2));
    const blocks = decodeLzmaStream('lzma', alone, new BufferReader(cut), 0);
    let decoded = 0;
    const error = await (async () => {
      for await (const block of blocks) decoded += block.length;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FormatError);
    expect((error as Error).message).toMatch(/^lzma: truncated stream/);
    expect(decoded).toBeGreaterThan(0);
  });

  it('decodes a stream that ends, breaks or gives nothing within its first 64 KiB off the thread, to the same result', async () => {
    const short = compressWith('xz', ['--format=lzma', '-c'], compressibleBytes(50_000, 8)); // ends within the probe's 64 KiB out
    const ended = await collect(decodeLzmaStream('lzma', alone, new BufferReader(Buffer.concat([short, AFTER])), 0));
    expect(ended.consumed).toBe(short.length);
    expect(Buffer.concat(ended.blocks).equals(compressibleBytes(50_000, 8))).toBe(true);
    // (lzma-native's Node stream hands its output over in pieces of 64 KiB at most)
    expect(ended.blocks.every((b) => b.length <= 64 * 1024)).toBe(true);
    const broken = Buffer.concat([short.subarray(0, 20), pseudoRandom(2 * 1024 * 1024, 8)]);
    await expect(collect(decodeLzmaStream('lzma', alone, new BufferReader(broken), 0))).rejects.toThrow(/^lzma: /);
  });

  it('says what is wrong with bytes that are not a stream', async () => {
    for (const size of [4096, 2 * 1024 * 1024]) {
      const error = await collect(decodeLzmaStream('xz', { kind: 'xz', single: true }, new BufferReader(pseudoRandom(size, 9)), 0)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FormatError);
      expect((error as Error).message).toMatch(/^xz: /);
    }
  });

  it('stops when the scan is cancelled', async () => {
    const { packed } = sparseStream();
    const controller = new AbortController();
    const blocks = decodeLzmaStream('lzma', alone, new BufferReader(Buffer.concat([packed, AFTER])), 0, controller.signal);
    await blocks.next();
    controller.abort(new Error('cancelled'));
    await expect(collect(blocks)).rejects.toThrow('cancelled');
  });

  it('decodes streams side by side, each to its own end', async () => {
    const datas = [compressibleBytes(1_500_000, 11), compressibleBytes(900_000, 12), compressibleBytes(2_100_000, 13)];
    const results = await Promise.all(
      datas.map((d) => collect(decodeLzmaStream('lzma', alone, new BufferReader(Buffer.concat([compressWith('xz', ['--format=lzma', '-c'], d), AFTER])), 0))),
    );
    results.forEach((r, i) => expect(Buffer.concat(r.blocks).equals(datas[i]!)).toBe(true));
  });
});

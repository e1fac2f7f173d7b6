import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { plausibleZlibBody } from '../../../../src/engine/unpack/compression/zlib/probe.js';
import { zlibHandler } from '../../../../src/engine/unpack/compression/zlib/zlib.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { compressibleBytes, pseudoRandom } from '../../../support/bytes.js';
import { extractFiles } from '../extract-harness.js';
import { compressionCases } from './compression-cases.js';

/** Offsets of every zlib magic in `data`. */
function magicHits(data: Buffer): number[] {
  const hits: number[] = [];
  for (const { bytes } of zlibHandler.magics) for (let at = data.indexOf(bytes); at !== -1; at = data.indexOf(bytes, at + 1)) hits.push(at);
  return hits.sort((a, b) => a - b);
}

describe('zlib handler', () => {
  compressionCases(zlibHandler, (data) => zlib.deflateSync(data));

  it('refuses a header that fails the check value', async () => {
    expect((await extractFiles(zlibHandler, Buffer.from([0x78, 0x9d, 1, 2, 3]))).chunk).toBeNull();
  });

  it('refuses a stream whose Adler-32 does not match', async () => {
    const packed = zlib.deflateSync(Buffer.alloc(1000, 7));
    packed[packed.length - 1] ^= 0xff;
    const outcome = await extractFiles(zlibHandler, packed).then((r) => r.chunk, (e: unknown) => e);
    expect(outcome === null || (outcome instanceof Error && /zlib/.test(outcome.message))).toBe(true);
  });

  // node writes CMF 0x18..0x78 for windowBits 9..15 (it turns 8 into 9); FLG's level bits follow the level.
  for (let windowBits = 9; windowBits <= 15; windowBits++) {
    it(`finds a stream with a ${2 ** windowBits}-byte window carved from random bytes`, async () => {
      const data = compressibleBytes(60_000, windowBits);
      for (const level of [1, 4, 6, 9]) {
        const packed = zlib.deflateSync(data, { windowBits, level });
        expect(packed[0]).toBe(((windowBits - 8) << 4) | 8);
        // Only the two headers that are also x86-64 MOV instructions are not searched for.
        const searched = !(windowBits === 12 && level >= 6);
        expect(magicHits(Buffer.concat([pseudoRandom(16, 1), packed.subarray(0, 2)])).includes(16)).toBe(searched);
        const image = Buffer.concat([pseudoRandom(777, windowBits), packed, pseudoRandom(300, level)]);
        const run = await extractFiles(zlibHandler, image, 777);
        expect(run.chunk).toMatchObject({ start: 777, end: 777 + packed.length });
        expect(Object.values(run.files)[0]?.equals(data)).toBe(true);
      }
    });
  }

  it('searches for every valid header but 48 89 and 48 C7: window 2^8..2^15, no preset dictionary', () => {
    const pairs = zlibHandler.magics.map(({ bytes }) => bytes.readUInt16BE(0));
    expect(pairs).toHaveLength(30);
    expect(pairs.filter((p) => p >> 8 === 0x78).map((p) => p & 0xff)).toEqual([0x01, 0x5e, 0x9c, 0xda]);
    expect(pairs).not.toContain(0x4889);
    expect(pairs).not.toContain(0x48c7);
    for (const p of pairs) expect([(p >> 8) & 0x0f, p >> 12 <= 7, p & 0x20, p % 31]).toEqual([8, true, 0, 0]);
  });

  it('finds no zlib chunk in random bytes (hundreds of magic hits, all quiet)', async () => {
    const data = pseudoRandom(2 * 1024 * 1024, 99);
    const reader = new BufferReader(data);
    const hits = magicHits(data);
    expect(hits.length).toBeGreaterThan(500);
    for (const at of hits) expect(await zlibHandler.chunk(reader, at)).toBeNull();
  });

  it('the body probe passes every stream node makes (all strategies, levels and windows)', () => {
    const { Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED, Z_DEFAULT_STRATEGY } = zlib.constants;
    const inputs = [Buffer.alloc(0), Buffer.from('a'), pseudoRandom(5000, 3), compressibleBytes(40_000), Buffer.alloc(70_000, 0x41)];
    for (const strategy of [Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED]) {
      for (const level of [0, 1, 5, 9]) {
        for (const windowBits of [9, 12, 15]) {
          for (const input of inputs) {
            const packed = zlib.deflateSync(input, { strategy, level, windowBits });
            expect(plausibleZlibBody(packed.subarray(2, 514))).toBe(true);
          }
        }
      }
    }
  });

  it('the body probe refuses what zlib would: reserved block type, stored length mismatch, incomplete code, bad checksum', () => {
    const body = (packed: Buffer) => packed.subarray(2);
    const stored = body(zlib.deflateSync(Buffer.from('hello'), { level: 0 }));
    expect(plausibleZlibBody(stored)).toBe(true);
    expect(plausibleZlibBody(Buffer.from([0x07, 0, 0, 0, 0]))).toBe(false); // block type 3
    expect(plausibleZlibBody(Buffer.concat([stored.subarray(0, 3), Buffer.from([0xfb, 0xfe]), stored.subarray(5)]))).toBe(false); // NLEN
    expect(plausibleZlibBody(Buffer.from([0x05, 0, 0, 0, 0, 0]))).toBe(false); // dynamic block, no code-length code
    const fixed = body(zlib.deflateSync(Buffer.from('abcabcabcabc'), { strategy: zlib.constants.Z_FIXED }));
    expect(plausibleZlibBody(fixed)).toBe(true);
    const wrongSum = Buffer.from(fixed);
    wrongSum[wrongSum.length - 1] ^= 1;
    expect(plausibleZlibBody(wrongSum)).toBe(false);
    expect(plausibleZlibBody(fixed.subarray(0, fixed.length - 4))).toBe(true); // checksum not in the probe: undecided
  });
});

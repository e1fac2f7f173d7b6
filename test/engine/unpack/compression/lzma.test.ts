import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { gzipHandler } from '../../../../src/engine/unpack/compression/gzip.js';
import { lzmaHandler, parseLzmaAloneHeader, parseLzmaHeaders } from '../../../../src/engine/unpack/compression/lzma/lzma.js';
import { unpack } from '../../../../src/engine/unpack/driver.js';
import { FormatError } from '../../../../src/engine/format-error.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { Budget, resolveLimits } from '../../../../src/engine/unpack/limits.js';
import { DirectorySink } from '../../../../src/engine/unpack/sink.js';
import { FillerBoundedReader } from '../../../../src/engine/unpack/compression/reader-views.js';
import { findLzmaEnd } from '../../../../src/engine/unpack/compression/lzma/end-finder.js';
import { compressibleBytes, pseudoRandom } from '../../../support/bytes.js';
import { extractFiles, tempDir } from '../extract-harness.js';
import { compressWith, tool } from '../handler-harness.js';
import { compressionCases } from './compression-cases.js';

/** The LZMA SDK encoder (Debian lzma-alone): writes the uncompressed size and, unless -eos, no end marker. */
function lzmaSdk(data: Buffer, ...args: string[]): Buffer {
  const dir = tempDir('lzma-sdk');
  writeFileSync(join(dir, 'in'), data);
  tool('lzma_alone', ['e', 'in', 'out', ...args], { cwd: dir });
  return readFileSync(join(dir, 'out'));
}

/** The same stream behind a 5-byte header (properties + dictionary size, no size field). */
function withoutSizeField(alone: Buffer): Buffer {
  return Buffer.concat([alone.subarray(0, 5), alone.subarray(13)]);
}

function withDeclaredSize(alone: Buffer, size: number): Buffer {
  const out = Buffer.from(alone);
  out.writeBigUInt64LE(BigInt(size), 5);
  return out;
}

const messages = (run: { problems: Array<{ message: string }> }) => run.problems.map((p) => p.message).join('\n');

describe('lzma handler', () => {
  // xz-utils' `lzma -c` writes -1 (unknown size) and an end marker.
  compressionCases(lzmaHandler, (data) => compressWith('lzma', ['-c'], data), { truncation: 'partial' });

  it('finds the end of an unknown-size stream by its end marker', async () => {
    const data = compressibleBytes(100_000);
    const packed = compressWith('xz', ['--format=lzma', '-c'], data);
    const header = parseLzmaAloneHeader(packed);
    expect(header).toMatchObject({ props: 0x5d, size: undefined });
    const run = await extractFiles(lzmaHandler, Buffer.concat([packed, pseudoRandom(100, 7)]));
    expect(run.chunk).toMatchObject({ start: 0, end: packed.length });
    expect(run.problems).toEqual([]);
  });

  it('extracts a sized stream from the blocks its probe decoded, and decodes it again for a chunk it did not probe', async () => {
    const data = compressibleBytes(300_000, 11);
    const packed = lzmaSdk(data);
    expect(parseLzmaAloneHeader(packed)).toMatchObject({ size: data.length });
    const reader = new BufferReader(Buffer.concat([packed, pseudoRandom(500, 3)]));
    const chunk = (await lzmaHandler.chunk(reader, 0))!;
    expect(chunk).toMatchObject({ start: 0, end: packed.length, meta: { mode: 'sized', decoded: data.length } });
    // three extractions of one probed chunk (the kept blocks serve the first only) and one of a copy never probed
    for (const info of [chunk, chunk, { ...chunk, meta: { ...chunk.meta! } }]) {
      const dir = tempDir('lzma-kept');
      const budget = new Budget(resolveLimits(reader.size, { maxTotalBytes: 1 << 24 }));
      const sink = new DirectorySink(dir, budget, { source: 'lzma', path: 'image' });
      try {
        await lzmaHandler.extract!(reader, info, sink);
      } finally {
        budget.dispose();
      }
      expect(sink.problems).toEqual([]);
      expect(sink.entries.map((e) => [e.kind, e.size])).toEqual([['file', data.length]]);
      expect(readFileSync(join(dir, sink.entries[0]!.path)).equals(data)).toBe(true);
    }
  });

  it('does not report streams of fewer than 64 decoded bytes, but does report one of 64', async () => {
    for (const [size, found] of [[20, false], [64, true]] as const) {
      const packed = lzmaSdk(compressibleBytes(size, 3));
      expect(parseLzmaAloneHeader(packed)).toMatchObject({ size });
      const reader = new BufferReader(Buffer.concat([packed, pseudoRandom(200, 5)]));
      const chunk = await lzmaHandler.chunk(reader, 0);
      expect(chunk !== null, `size ${size}`).toBe(found);
    }
  });

  it('refuses implausible headers without decoding', () => {
    const good = Buffer.from([0x5d, 0, 0, 0x80, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0]);
    expect(parseLzmaAloneHeader(good)).toMatchObject({ dictSize: 0x800000 });
    const badDict = Buffer.from(good);
    badDict.writeUInt32LE(0x812345, 1);
    expect(parseLzmaAloneHeader(badDict)).toBeNull();
    expect(parseLzmaHeaders(badDict)).toEqual([]);
    const badFirstByte = Buffer.from(good);
    badFirstByte[13] = 1;
    expect(parseLzmaAloneHeader(badFirstByte)).toBeNull();
    const hugeSize = Buffer.from(good);
    hugeSize.writeUInt32LE(0x10000, 9);
    expect(parseLzmaAloneHeader(hugeSize)).toBeNull();
    // No size field: the stream's first byte 0 right after the dictionary size.
    const short = Buffer.from([0x5d, 0, 0, 0x80, 0, 0, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0]);
    expect(parseLzmaHeaders(short)).toEqual([{ layout: 'no-size', headerSize: 5, props: 0x5d, dictSize: 0x800000 }]);
  });
});

describe('FillerBoundedReader', () => {
  it('ends at the first run of padding even when it straddles two reads, and never before `from`', async () => {
    for (const fill of [0x00, 0xff]) {
      const data = Buffer.concat([Buffer.alloc(40, fill), pseudoRandom(16_340, 3), Buffer.alloc(100, fill), pseudoRandom(5000, 4)]);
      const bounded = new FillerBoundedReader(new BufferReader(data), 40);
      const first = await bounded.read(0, 16_384);
      expect(first.length).toBe(16_380);
      expect(bounded).toMatchObject({ filler: 16_380, size: 16_380 });
      expect((await bounded.read(16_380, 100)).length).toBe(0);
    }
  });
});

describe('lzma handler: LZMA SDK streams with a declared size and no end marker', () => {
  compressionCases(lzmaHandler, (data) => lzmaSdk(data), { truncation: 'partial' });

  it('ends at the declared size, with what follows left to carving', async () => {
    const data = compressibleBytes(150_000, 3);
    const packed = lzmaSdk(data);
    expect(parseLzmaAloneHeader(packed)).toMatchObject({ size: data.length });
    const run = await extractFiles(lzmaHandler, Buffer.concat([packed, Buffer.alloc(4096, 0xff), zlib.gzipSync(data)]));
    expect(run.chunk).toMatchObject({ end: packed.length, meta: { mode: 'sized' } });
    expect(Object.values(run.files)[0]?.equals(data)).toBe(true);
    expect(run.problems).toEqual([]);
  });
});

describe('lzma handler: vendor variants', () => {
  const data = compressibleBytes(200_000, 5);
  const noMarker = lzmaSdk(data);
  const marker = lzmaSdk(data, '-eos');
  const streamLength = noMarker.length - 13;
  const only = (run: Awaited<ReturnType<typeof extractFiles>>) => Object.values(run.files)[0]!;

  it('decodes a 5-byte header without a size field, ended by its end marker', async () => {
    const short = withoutSizeField(marker);
    const run = await extractFiles(lzmaHandler, Buffer.concat([pseudoRandom(64, 2), short, pseudoRandom(3000, 4)]), 64);
    expect(run.chunk).toMatchObject({ start: 64, end: 64 + short.length, meta: { layout: 'no-size', endMarker: true } });
    expect(only(run).equals(data)).toBe(true);
    expect(run.problems).toEqual([]);
  });

  it('ends a 5-byte-header stream without an end marker where the padding after it starts', async () => {
    for (const fill of [0xff, 0x00]) {
      const short = withoutSizeField(noMarker);
      const next = zlib.gzipSync(Buffer.from('the next partition'));
      const run = await extractFiles(lzmaHandler, Buffer.concat([short, Buffer.alloc(65536, fill), next]));
      expect(run.chunk).toMatchObject({ end: short.length, meta: { layout: 'no-size', endMarker: false, cut: 'filler' } });
      // Zero padding would otherwise decode as endless zero literals: the output is exactly the data.
      expect(only(run).equals(data)).toBe(true);
      expect(messages(run)).toMatch(/no end marker; it ends where padding starts/);
    }
  });

  it('measures the exact size and end of unknown-size streams without a marker, whatever their last bytes', async () => {
    // Most LZMA SDK streams end with zero bytes, which merge into zero padding: the size is measured, not guessed.
    for (let seed = 1; seed <= 8; seed++) {
      // Odd seeds end in zeros: past the real end, zero input decodes as zero literals, so only the measure tells.
      const body = compressibleBytes(20_000 + seed * 3000, seed);
      const plain = seed % 2 ? Buffer.concat([body, Buffer.alloc(seed * 700)]) : body;
      const packed = withDeclaredSize(lzmaSdk(plain), 0);
      packed.fill(0xff, 5, 13); // unknown size
      for (const fill of [0x00, 0xff]) {
        const run = await extractFiles(lzmaHandler, Buffer.concat([packed, Buffer.alloc(1000, fill), pseudoRandom(500, seed)]));
        expect(run.chunk, `seed ${seed} fill ${fill}`).toMatchObject({ end: packed.length, meta: { mode: 'measured', decoded: plain.length } });
        expect(only(run).equals(plain), `seed ${seed} fill ${fill}`).toBe(true);
      }
    }
  });

  it('survives a declared size that is too small, too large, or given with an end marker', async () => {
    const cases: Array<[string, Buffer, RegExp]> = [
      ['too small, padded', Buffer.concat([withDeclaredSize(noMarker, 120_000), Buffer.alloc(2048, 0xff)]), /declares 120000 bytes but does not decode/],
      ['too large, padded', Buffer.concat([withDeclaredSize(noMarker, 900_000), Buffer.alloc(2048, 0)]), /declares 900000 bytes/],
      ['too large, at the end of the data', withDeclaredSize(noMarker, 900_000), /ends at the end of the data/],
      ['too large, with an end marker', Buffer.concat([withDeclaredSize(marker, 900_000), pseudoRandom(2048, 8)]), /ends with its end marker after 200000/],
      ['right, with an end marker', Buffer.concat([withDeclaredSize(marker, data.length), pseudoRandom(2048, 8)]), /^$/],
    ];
    for (const [label, image, problem] of cases) {
      const run = await extractFiles(lzmaHandler, image);
      const streamEnd = label.includes('marker') ? marker.length : noMarker.length;
      expect(run.chunk?.end, label).toBe(streamEnd);
      expect(only(run).equals(data), label).toBe(true);
      expect(messages(run), label).toMatch(problem);
    }
  });

  it('ends a stream without a marker that runs into other data where its range coder finished', async () => {
    for (const [label, head] of [
      ['lying size', withDeclaredSize(noMarker, 900_000)],
      ['no size field', withoutSizeField(noMarker)],
    ] as const) {
      const next = Buffer.concat([Buffer.from('hsqs'), pseudoRandom(20_000, 9)]);
      const run = await extractFiles(lzmaHandler, Buffer.concat([head, next]));
      expect(run.chunk, label).toMatchObject({ end: head.length, meta: { mode: 'measured', cut: 'decoder-break', decoded: data.length } });
      expect(only(run).equals(data), label).toBe(true);
      expect(messages(run), label).toMatch(/ends where its range coder finished, before the data that follows it/);
    }
  });

  it('finds the end of streams with far matches, short repeats and literals of every kind (lzma-end-finder)', async () => {
    const block = pseudoRandom(60_000, 31);
    const mixed = Buffer.concat([block, compressibleBytes(70_000, 6), Buffer.alloc(3000, 7), block, pseudoRandom(2000, 5), block.subarray(100, 9000)]);
    for (const args of [[], ['-lc1', '-lp2', '-pb2'], ['-lc0', '-lp0', '-pb0']]) {
      const packed = lzmaSdk(mixed, ...args);
      const garbage = Buffer.concat([packed.subarray(0, 5), Buffer.alloc(8, 0xff), packed.subarray(13), pseudoRandom(3000, 2)]);
      const found = await findLzmaEnd(new BufferReader(garbage), 13, packed[0]!, packed.readUInt32LE(1), garbage.length);
      expect(found, args.join(' ')).toEqual({ end: packed.length, size: mixed.length });
    }
  });

  it('decodes a stream that breaks before its end up to the break, and says its end is approximate', async () => {
    const broken = withDeclaredSize(noMarker, 900_000);
    broken.fill(0x5a, broken.length - 3000, broken.length - 2900);
    const run = await extractFiles(lzmaHandler, Buffer.concat([broken, pseudoRandom(5000, 9)]));
    expect(run.chunk).toMatchObject({ meta: { mode: 'unsized', cut: 'decoder-break' } });
    const out = only(run);
    expect(out.length).toBeGreaterThan(10_000);
    expect(out.subarray(0, 10_000).equals(data.subarray(0, 10_000))).toBe(true);
    expect(messages(run)).toMatch(/its end and last bytes are approximate/);
  });

  it('accepts no random or otherwise compressed bytes behind a plausible header', async () => {
    const headers = [
      Buffer.from([0x5d, 0, 0, 0x80, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), // unknown size
      Buffer.from([0x6d, 0, 0, 0x20, 0, 0x00, 0x40, 0x06, 0, 0, 0, 0, 0]), // declared size
      Buffer.from([0x5e, 0, 0, 0x40, 0]), // no size field
      Buffer.from([0x65, 0, 0, 0x01, 0]),
    ];
    const bodies = [
      (seed: number) => pseudoRandom(20_000, seed),
      (seed: number) => zlib.deflateRawSync(compressibleBytes(60_000, seed)),
      (seed: number) => compressWith('xz', ['-c'], compressibleBytes(30_000, seed)),
    ];
    // each body made once for all headers (the xz ones are a process each)
    const made = bodies.map((body) => Array.from({ length: 25 }, (_, i) => body(i + 1)));
    let tried = 0;
    for (const header of headers) {
      for (const streams of made) {
        for (const [i, body] of streams.entries()) {
          const seed = i + 1;
          const stream = Buffer.from(body);
          stream[0] = 0; // the range coder's first byte, as a real stream has it
          const candidate = Buffer.concat([header, stream]);
          const result = await lzmaHandler.chunk(new BufferReader(candidate), 0).catch((e: unknown) => e);
          expect(result, `header ${header.toString("hex")} seed ${seed}`).toBeNull();
          tried++;
        }
      }
    }
    expect(tried).toBe(300);
  });

  it('lets carving go on right after a vendor kernel: a flash layout of kernel, padding and the next partition', async () => {
    // A 5-byte-header kernel without an end marker, erased flash up to the next 64 KiB boundary, then a gzip "rootfs".
    const kernel = withoutSizeField(noMarker);
    const rootfs = compressibleBytes(30_000, 11);
    const partition = Math.ceil(kernel.length / 65536) * 65536;
    const flash = Buffer.concat([kernel, Buffer.alloc(partition - kernel.length, 0xff), zlib.gzipSync(rootfs), Buffer.alloc(5000, 0xff)]);
    const dir = tempDir('lzma-flash');
    writeFileSync(join(dir, 'flash.bin'), flash);
    const result = await unpack(join(dir, 'flash.bin'), join(dir, 'out'), { handlers: [gzipHandler, lzmaHandler] });
    const extracted = result.files.filter((f) => f.depth === 1);
    expect(extracted.map((f) => [f.format, f.offset, f.size])).toEqual([
      ['lzma', 0, data.length],
      ['gzip', partition, rootfs.length],
    ]);
    expect(readFileSync(join(dir, 'out', extracted[0]!.path)).equals(data)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { lzmaHandler, parseLzmaAloneHeader } from '../../../../src/engine/unpack/compression/lzma.js';
import { compressibleBytes, pseudoRandom } from '../../../support/bytes.js';
import { extractFiles } from '../extract-harness.js';
import { compressWith } from '../handler-harness.js';
import { compressionCases } from './compression-cases.js';

describe('lzma handler', () => {
  // `lzma -c` from a file writes the size; from a pipe it writes -1 (unknown) and an end marker.
  compressionCases(lzmaHandler, (data) => compressWith('lzma', ['-c'], data), { truncation: 'partial' });

  it('finds the end of an unknown-size stream by its end marker', async () => {
    const data = compressibleBytes(100_000);
    const packed = compressWith('xz', ['--format=lzma', '-c'], data);
    const header = parseLzmaAloneHeader(packed);
    expect(header).toMatchObject({ props: 0x5d, size: undefined });
    const run = await extractFiles(lzmaHandler, Buffer.concat([packed, pseudoRandom(100, 7)]));
    expect(run.chunk).toMatchObject({ start: 0, end: packed.length });
  });

  it('refuses implausible headers without decoding', () => {
    const good = Buffer.from([0x5d, 0, 0, 0x80, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0]);
    expect(parseLzmaAloneHeader(good)).toMatchObject({ dictSize: 0x800000 });
    const badDict = Buffer.from(good);
    badDict.writeUInt32LE(0x812345, 1);
    expect(parseLzmaAloneHeader(badDict)).toBeNull();
    const badFirstByte = Buffer.from(good);
    badFirstByte[13] = 1;
    expect(parseLzmaAloneHeader(badFirstByte)).toBeNull();
    const hugeSize = Buffer.from(good);
    hugeSize.writeUInt32LE(0x10000, 9);
    expect(parseLzmaAloneHeader(hugeSize)).toBeNull();
  });
});

describe('lzma handler: vendor streams', () => {
  it('decodes an unknown-size stream without its end marker as far as it goes, with a warning', async () => {
    const data = compressibleBytes(200_000);
    const packed = compressWith('lzma', ['-c'], data);
    // Cut off the end marker (and the last symbols with it): what vendor tools that omit it leave behind.
    const cut = packed.subarray(0, packed.length - 16);
    const run = await extractFiles(lzmaHandler, cut);
    expect(run.chunk).toMatchObject({ start: 0, meta: { noEndMarker: true } });
    const out = Object.values(run.files)[0]!;
    expect(out.length).toBeGreaterThan(100_000); // the output of the last input step before the break is lost
    expect(out.equals(data.subarray(0, out.length))).toBe(true);
    expect(run.problems[0]?.message).toMatch(/no end marker/);
  });
});

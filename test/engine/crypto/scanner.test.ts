import { describe, expect, it } from 'vitest';
import { MultiPatternScanner } from '../../../src/engine/crypto/scanner.js';
import { pseudoRandom } from './support.js';

async function* chunked(data: Buffer, size: number) {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

describe('MultiPatternScanner', () => {
  const patterns = [Buffer.from('expand 32-byte k'), Buffer.from([0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5]), Buffer.from('\0\0\0\0abcd')];

  it('reports every occurrence once, across chunk boundaries, at its stream offset', async () => {
    const data = pseudoRandom(10_000, 7);
    const planted = [[0, 0], [4070, 0], [4093, 1], [8190, 2], [9984, 0]] as const;
    for (const [at, p] of planted) patterns[p]!.copy(data, at);
    const hits: Array<[number, number]> = [];
    const scanner = new MultiPatternScanner(patterns);
    const size = await scanner.scanStream(chunked(data, 4096), (p, at) => hits.push([p, at]));
    expect(size).toBe(10_000);
    expect(hits.sort((a, b) => a[1] - b[1])).toEqual(planted.map(([at, p]) => [p, at]));
    // Same answer with tiny chunks (smaller than the patterns) and from a whole buffer.
    const tiny: Array<[number, number]> = [];
    await scanner.scanStream(chunked(data, 3), (p, at) => tiny.push([p, at]));
    expect(tiny.sort((a, b) => a[1] - b[1])).toEqual(hits);
    // and with chunks of mixed sizes: large ones are scanned in place, small ones joined to the tail before them
    const sizes = [4096, 5, 100, 64, 70, 3000, 1];
    async function* mixed() {
      for (let at = 0, i = 0; at < data.length; at += sizes[i++ % sizes.length]!) yield data.subarray(at, at + sizes[i % sizes.length]!);
    }
    const varied: Array<[number, number]> = [];
    expect(await scanner.scanStream(mixed(), (p, at) => varied.push([p, at]))).toBe(10_000);
    expect(varied.sort((a, b) => a[1] - b[1])).toEqual(hits);
    const whole: Array<[number, number]> = [];
    scanner.scanBuffer(data, (p, at) => whole.push([p, at]));
    expect(whole.sort((a, b) => a[1] - b[1])).toEqual(hits);
  });

  it('passes over gaps in the stream: nothing inside or across one, offsets counted through it', async () => {
    const data = pseudoRandom(12_000, 5);
    // before the gap, inside it, straddling its start and its end, and after it
    const planted = [[100, 0], [5000, 1], [3995, 2], [7995, 1], [9000, 0]] as const;
    for (const [at, p] of planted) patterns[p]!.copy(data, at);
    const [gapStart, gapEnd] = [4000, 8000];
    async function* withGap(size: number) {
      for (let at = 0; at < gapStart; at += size) yield data.subarray(at, Math.min(at + size, gapStart));
      yield { skip: gapEnd - gapStart };
      for (let at = gapEnd; at < data.length; at += size) yield data.subarray(at, at + size);
    }
    const scanner = new MultiPatternScanner(patterns);
    for (const size of [4096, 3, 700]) {
      const hits: Array<[number, number]> = [];
      expect(await scanner.scanStream(withGap(size), (p, at) => hits.push([p, at]))).toBe(12_000);
      expect(hits.sort((a, b) => a[1] - b[1])).toEqual([[0, 100], [0, 9000]]);
    }
  });

  it('finds nothing in random data and handles empty and short input', async () => {
    const scanner = new MultiPatternScanner(patterns);
    const hits: number[] = [];
    await scanner.scanStream(chunked(pseudoRandom(200_000, 3), 65536), (p) => hits.push(p));
    await scanner.scanStream(chunked(Buffer.alloc(0), 10), (p) => hits.push(p));
    await scanner.scanStream(chunked(Buffer.from('ab'), 10), (p) => hits.push(p));
    expect(hits).toEqual([]);
  });

  it('finds a pattern whose anchor is common in the data, and only where all of it is', () => {
    // AES round constants as 32-bit words: every 4-byte window of it is frequent in binaries
    const rcon = Buffer.alloc(40);
    [1, 2, 4, 8, 16, 32, 64, 128, 27, 54].forEach((v, i) => rcon.writeUInt32LE(v, i * 4));
    const short = Buffer.from([1, 0, 0, 0, 2]);
    const data = pseudoRandom(50_000, 9);
    // partial copies (the first 12, 24 and 39 bytes) everywhere, and the whole pattern twice
    for (let at = 100; at + 40 < data.length; at += 500) rcon.copy(data, at, 0, [12, 24, 39][(at / 500) % 3 | 0]!);
    rcon.copy(data, 20_050);
    rcon.copy(data, data.length - 40);
    const hits: Array<[number, number]> = [];
    new MultiPatternScanner([rcon, short]).scanBuffer(data, (p, at) => hits.push([p, at]));
    const rconHits = hits.filter(([p]) => p === 0).map(([, at]) => at);
    expect(rconHits).toEqual([20_050, data.length - 40]);
    // the 5-byte pattern has no window apart from its anchor: compared whole wherever its anchor is
    const expected: number[] = [];
    for (let at = data.indexOf(short); at !== -1; at = data.indexOf(short, at + 1)) expected.push(at);
    expect(hits.filter(([p]) => p === 1).map(([, at]) => at)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(50);
  });

  it('rejects patterns shorter than its 4-byte anchor', () => {
    expect(() => new MultiPatternScanner([Buffer.from('abc')])).toThrow(/shorter than 4 bytes/);
  });

  it('scans 64 MB in seconds with the full pattern set', async () => {
    const { patternSet } = await import('../../../src/engine/crypto/patterns.js');
    const { scanner } = patternSet();
    const block = pseudoRandom(1 << 20, 11);
    async function* stream() {
      for (let i = 0; i < 64; i++) yield block;
    }
    const started = Date.now();
    let hits = 0;
    const size = await scanner.scanStream(stream(), () => hits++);
    expect(size).toBe(64 << 20);
    // About 2 s on an idle 2-core machine; the bound leaves room for a busy one.
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});

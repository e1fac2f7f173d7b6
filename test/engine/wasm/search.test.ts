import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEARCH_WASM_COMPILER } from '../../../src/engine/wasm/search-module.js';
import { AnchorSearch, PairSearch, PairTables, quadSlot } from '../../../src/engine/wasm/search.js';

const root = resolve(import.meta.dirname, '..', '..', '..');

/** The first line of this machine's `clang --version`, or undefined without clang and wasm-ld. */
function clang(): string | undefined {
  try {
    execFileSync('wasm-ld', ['--version'], { stdio: 'ignore' });
    return execFileSync('clang', ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();
  } catch {
    return undefined;
  }
}

/** A generator of pseudo-random numbers that the test can repeat (xorshift32). */
function numbers(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

/** Bytes drawn mostly from a few values, so that chosen pairs and windows recur. */
function skewedBytes(length: number, next: () => number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = next() % 4 === 0 ? next() & 0xff : next() % 6;
  return out;
}

/**
 * The pair scan as the chunk search ran it in JavaScript before (unpack/scanner.ts), with the quad test: a pair
 * marked 1 also needs its position's four bytes to hash to a set bit of `quads` (unless fewer than four are left).
 */
function pairReference(data: Uint8Array, end: number, tables: PairTables): number[] {
  const { pairs: table, next: nextByte, quads } = tables;
  const out: number[] = [];
  for (let i = 0; i < end; i++) {
    const key = (data[i]! << 8) | data[i + 1]!;
    if (table[key] === 0) continue;
    const after = i + 2 < data.length ? data[i + 2]! : 0;
    if ((nextByte[(key << 3) + (after >>> 5)]! & (1 << (after & 31))) === 0) continue;
    if (table[key] === 1 && i + 4 <= data.length) {
      const slot = quadSlot(data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24));
      if ((quads[slot >>> 5]! & (1 << (slot & 31))) === 0) continue;
    }
    out.push(i);
  }
  return out;
}

/** The anchor scan as the crypto scanner ran it in JavaScript before (crypto/scanner.ts). */
function anchorReference(data: Uint8Array, from: number, end: number, filter: Int32Array): number[] {
  const out: number[] = [];
  let h = (data[from]! | (data[from + 1]! << 8) | (data[from + 2]! << 16)) << 8;
  for (let i = from; i < end; i++) {
    h = (h >>> 8) | (data[i + 3]! << 24);
    const slot = Math.imul(h, 0x9e3779b1) >>> 14;
    if ((filter[slot >>> 5]! & (1 << (slot & 31))) !== 0) out.push(i);
  }
  return out;
}

/** The first index where two lists differ, or -1 when they are equal. */
function firstDifference(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
}

function collect(run: (visit: (i: number) => void) => void): number[] {
  const out: number[] = [];
  run((i) => out.push(i));
  return out;
}

describe('search module', () => {
  const compiler = clang();
  it.skipIf(compiler !== SEARCH_WASM_COMPILER)('is what scripts/build-wasm.mjs makes of search.c (and crypt-module.ts of crypt.c)', () => {
    // the build itself fails the command (and so the test) on a compiler warning or error
    expect(execFileSync('node', ['scripts/build-wasm.mjs', '--check'], { cwd: root, encoding: 'utf8' })).toContain('matches');
  });
  if (compiler !== SEARCH_WASM_COMPILER) {
    console.warn(`search module: not rebuilt (made by "${SEARCH_WASM_COMPILER}", this machine has ${compiler ? `"${compiler}"` : 'no clang with wasm-ld'})`);
  }
});

describe('PairSearch', () => {
  const next = numbers(0x5eed);
  // filled through PairTables.add and by hand: the same arrays the JavaScript reference reads
  const tables = new PairTables();
  const sample = skewedBytes(4096, next);
  for (let k = 0; k < 40; k++) {
    const key = ((next() % 6) << 8) | next() % 6;
    // some pairs take any next byte (and so no quad), the others a few, and of those some have no quad
    if (k % 3 === 0) tables.add(key, undefined);
    else for (let b = 0; b < 3; b++) tables.add(key, next() % 6, k % 3 === 1 ? undefined : next());
  }
  // quads of windows that occur in the skewed data, under pairs of their own
  for (let k = 0; k < 200; k++) {
    const at = next() % (sample.length - 4);
    tables.add((sample[at]! << 8) | sample[at + 1]!, sample[at + 2]!, sample[at]! | (sample[at + 1]! << 8) | (sample[at + 2]! << 16) | (sample[at + 3]! << 24));
  }
  const search = new PairSearch(tables);

  it('finds the positions the JavaScript loop found, across windows and full candidate batches', () => {
    // 2.5 MiB: three windows, and thousands of candidates per window (more than one batch)
    const data = skewedBytes(2.5 * 1024 * 1024, next);
    const expected = pairReference(data, data.length - 1, tables);
    expect(expected.length).toBeGreaterThan(3 * 16384);
    expect(collect((visit) => search.search(data, data.length - 1, visit))).toEqual(expected);
  });

  it('stops at `end`, and sees the data end after a window’s last position', () => {
    for (const length of [2, 3, 5, 1024 * 1024 + 1, 1024 * 1024 + 2]) {
      const data = skewedBytes(length, next);
      for (const end of [length - 1, Math.max(0, length - 2), Math.floor(length / 2)]) {
        expect(collect((visit) => search.search(data, end, visit))).toEqual(pairReference(data, end, tables));
      }
    }
  });

  it('finds nothing in an empty range', () => {
    expect(collect((visit) => search.search(new Uint8Array([1]), 0, visit))).toEqual([]);
  });

  it('tests the quad of a pair only when every literal on it has four bytes', () => {
    const marks = new PairTables();
    marks.add(0x4142, 0x43, 0x44434241);
    marks.add(0x4142, 0x45, 0x45444241);
    marks.add(0x5859, 0x5a);
    marks.add(0x5859, 0x5a, 0x215a5958);
    expect([marks.pairs[0x4142], marks.pairs[0x5859]]).toEqual([1, 2]);
    const data = Buffer.from('ABCD ABCE ABEB XYZ! XYZ? ABC');
    const found = collect((visit) => new PairSearch(marks).search(data, data.length - 1, visit));
    // ABCE, ABEB: quads of no literal; XYZ?: its pair has a literal of three bytes; the last ABC: fewer than four
    // bytes left, so its caller compares it
    expect(found).toEqual([0, 15, 20, 25]);
  });

  it('may be searched again from inside a visit, also while the outer search has batches to go', () => {
    const data = skewedBytes(1024 * 1024 + 100, next);
    const inner = skewedBytes(512 * 1024, next);
    const innerExpected = pairReference(inner, inner.length - 1, tables);
    const outer: number[] = [];
    const nested: number[][] = [];
    search.search(data, data.length - 1, (i) => {
      outer.push(i);
      // a search inside the outer one's first batch (of 16,384) overwrites the instance's window and candidates
      if (outer.length === 1 || outer.length === 8000) nested.push(collect((visit) => search.search(inner, inner.length - 1, visit)));
    });
    expect(outer.length).toBeGreaterThan(16384);
    // where the lists first differ (-1: nowhere): a failed toEqual of lists this long takes minutes to print
    expect(firstDifference(outer, pairReference(data, data.length - 1, tables))).toBe(-1);
    expect(nested.map((found) => firstDifference(found, innerExpected))).toEqual([-1, -1]);
  });

  it('may be searched again from inside a visit', () => {
    const data = skewedBytes(4096, next);
    const inner = skewedBytes(1024, next);
    const outer: number[] = [];
    const nested: number[][] = [];
    search.search(data, data.length - 1, (i) => {
      outer.push(i);
      if (outer.length === 1) nested.push(collect((visit) => search.search(inner, inner.length - 1, visit)));
    });
    expect(outer).toEqual(pairReference(data, data.length - 1, tables));
    expect(nested[0]).toEqual(pairReference(inner, inner.length - 1, tables));
  });
});

describe('AnchorSearch', () => {
  const next = numbers(0xa5c4);
  const filter = new Int32Array(1 << 13);
  // slots of windows that occur in the skewed data, and random ones
  const sample = skewedBytes(4096, next);
  for (let k = 0; k < 400; k++) {
    const at = next() % (sample.length - 4);
    const word = sample[at]! | (sample[at + 1]! << 8) | (sample[at + 2]! << 16) | (sample[at + 3]! << 24);
    const slot = Math.imul(word, 0x9e3779b1) >>> 14;
    filter[slot >>> 5]! |= 1 << (slot & 31);
  }
  for (let k = 0; k < 300; k++) {
    const slot = next() >>> 14;
    filter[slot >>> 5]! |= 1 << (slot & 31);
  }
  const search = new AnchorSearch(filter);

  it('finds the positions the JavaScript loop found, across windows and full candidate batches', () => {
    const data = skewedBytes(2.5 * 1024 * 1024, next);
    const expected = anchorReference(data, 0, data.length - 3, filter);
    expect(expected.length).toBeGreaterThan(3 * 16384);
    expect(collect((visit) => search.search(data, 0, data.length - 3, visit))).toEqual(expected);
  });

  it('searches [from, end) only, and no window past the data', () => {
    const data = skewedBytes(1024 * 1024 + 7, next);
    for (const [from, end] of [
      [0, data.length - 3],
      [5, 1024 * 1024 + 2],
      [1024 * 1024 - 1, data.length - 3],
      [17, 18],
    ] as const) {
      expect(collect((visit) => search.search(data, from, end, visit))).toEqual(anchorReference(data, from, end, filter));
    }
    // an end past the last full window is the last full window
    expect(collect((visit) => search.search(data, 0, data.length, visit))).toEqual(anchorReference(data, 0, data.length - 3, filter));
    expect(collect((visit) => search.search(data.subarray(0, 3), 0, 3, visit))).toEqual([]);
  });

  it('finds every hit of random data with every slot set', () => {
    const all = new AnchorSearch(new Int32Array(1 << 13).fill(-1));
    const data = new Uint8Array(randomBytes(70_000));
    expect(collect((visit) => all.search(data, 0, data.length - 3, visit))).toEqual(Array.from({ length: data.length - 3 }, (_, i) => i));
  });
});

describe('PairTables', () => {
  it('marks a pair with the byte after it, or with every byte when the literal ends there', () => {
    const tables = new PairTables();
    tables.add(0x1f8b, 0x08);
    tables.add(0x1f8b, 0x41);
    tables.add(0x6869, undefined);
    // 2: a pair with a literal of fewer than four bytes (no quad), whose positions are not tested on four
    expect(tables.pairs[0x1f8b]).toBe(2);
    expect(tables.pairs[0x6869]).toBe(2);
    expect(tables.pairs[0x8b1f]).toBe(0);
    const follows = (pair: number, byte: number) => (tables.next[pair * 8 + (byte >>> 5)]! & (1 << (byte & 31))) !== 0;
    expect([0x08, 0x41, 0x09].map((b) => follows(0x1f8b, b))).toEqual([true, true, false]);
    expect([0, 0x41, 0xff].every((b) => follows(0x6869, b))).toBe(true);
    // the pair scan over them: "hi" anywhere, 1f 8b only before 08 or 41
    const search = new PairSearch(tables);
    const data = new Uint8Array(Buffer.from([0x1f, 0x8b, 0x08, 0x1f, 0x8b, 0x09, 0x68, 0x69, 0x00]));
    expect(collect((visit) => search.search(data, data.length - 1, visit))).toEqual([0, 6]);
  });
});

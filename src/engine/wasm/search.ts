// The byte searches' inner loops in WebAssembly (search.c, built by scripts/build-wasm.mjs): the chunk search's
// pair scan (PairSearch, unpack/scanner.ts) and the crypto scanner's anchor scan (AnchorSearch, crypto/scanner.ts).
// Each copies the bytes into its instance's memory a window at a time and hands back candidate positions; the
// caller compares its patterns there, on its own bytes. Measured over 100 MB of /usr/bin and /usr/lib
// (2026-11-30, seven interleaved passes, same results): the pair scan with its pattern checks 288 -> 159 ms (min),
// the anchor scan with its checks 444 -> 269 ms. A pair scan also tests the four bytes from a position where every
// literal on its pair has four (PairTables' quads, 2026-12-01): over the bench image's 256 MB of files the chunk
// search's candidates went from 325,000 to 124,000 and its pass from ~290 to ~228 ms (medians of three); the rules'
// literals (513,000 -> 131,000) and the inventory's needles (2.9 -> 0.97 million) took as long as before, the work
// saved on fewer candidates going to the test. The crypto scanner's anchors through a pair scan with quads instead
// of the anchor scan: 645 against 455 ms (its anchors are chosen for their four bytes, and their pairs are common).
import { SEARCH_WASM } from './search-module.js';
import { wasm } from './wasm-api.js';

interface SearchExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  __heap_base: { value: number };
  pair_table(): number;
  pair_le(): number;
  next_byte(): number;
  quad_filter(): number;
  anchor_filter(): number;
  pair_candidates(data: number, len: number, from: number, end: number, out: number, cap: number, count: number): number;
  anchor_candidates(data: number, from: number, end: number, out: number, cap: number, count: number): number;
}

/** Positions searched per call: the bytes copied into the instance's memory at once. */
const WINDOW = 1 << 20;
/** Candidates one call returns at most (it stops there and is called again). */
const CAP = 16384;
/** Bytes a window carries past its last position (a pair's next byte, an anchor's four). */
const TAIL = 4;

/** Compiled once per thread, on first use. */
let compiled: object | undefined;

/**
 * One instance of search.c, with its own memory: its tables, then the count, the candidates and the window. The
 * memory grows once, here, so the views below stay valid.
 */
class SearchInstance {
  readonly exports: SearchExports;
  readonly bytes: Uint8Array;
  readonly words: Uint32Array;
  readonly countAt: number;
  readonly outAt: number;
  readonly dataAt: number;

  constructor() {
    compiled ??= new wasm.Module(Buffer.from(SEARCH_WASM, 'base64'));
    this.exports = new wasm.Instance(compiled, {}).exports as SearchExports;
    const { memory } = this.exports;
    this.countAt = (Number(this.exports.__heap_base.value) + 15) & ~15;
    this.outAt = this.countAt + 16;
    this.dataAt = this.outAt + CAP * 4;
    const needed = this.dataAt + WINDOW + TAIL;
    if (memory.buffer.byteLength < needed) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / 65536));
    this.bytes = new Uint8Array(memory.buffer);
    this.words = new Uint32Array(memory.buffer);
  }

  /** Scans so far: the window holds the bytes of the one whose number is `windowOf`. */
  private scans = 0;
  private windowOf = 0;

  /**
   * Copies `data[start, start + length)` into the window, then calls `call` (one of the exports, from a position of
   * the window) until it has gone through `positions` positions, and visits each candidate at its place in `data`.
   * A visit may start another search on this instance: the candidates of a call are copied out before they are
   * visited, and the window is copied in again when another scan has used it meanwhile.
   */
  scan(data: Uint8Array, start: number, length: number, positions: number, call: (from: number) => number, visit: (i: number) => void): void {
    const scan = ++this.scans;
    for (let from = 0; from < positions; ) {
      if (this.windowOf !== scan) {
        this.bytes.set(data.subarray(start, start + length), this.dataAt);
        this.windowOf = scan;
      }
      from = call(from);
      const out = this.outAt >>> 2;
      const found = this.words.slice(out, out + this.words[this.countAt >>> 2]!);
      for (let k = 0; k < found.length; k++) visit(start + found[k]!);
    }
  }
}

/** The slot of a 4-byte little-endian word in a quad or anchor filter of 2^18 bits (search.c's slot_of). */
export function quadSlot(word: number): number {
  return Math.imul(word, 0x9e3779b1) >>> 14;
}

/**
 * The tables of a pair scan, as search.c reads them: for each byte pair (first byte << 8 | second) that starts a
 * literal, 1 when every literal starting with it has four bytes or more and 2 when one has fewer; for each such pair
 * a 256-bit set (eight 32-bit words) of the bytes that may follow it; and a bit set (2^18 bits) of the hashes of the
 * literals' first four bytes, which a position of a pair marked 1 must hit. The chunk search (a magic from its
 * anchor), the inventory's needle search and the rules' literal search fill them alike.
 */
export class PairTables {
  readonly pairs = new Uint8Array(65536);
  readonly next = new Int32Array(65536 * 8);
  readonly quads = new Int32Array(1 << 13);

  /**
   * A literal starts with `pair`; `after` is its byte after the pair, or undefined when it has none (any byte may
   * follow); `quad` is its first four bytes as a little-endian word, or undefined when it has fewer.
   */
  add(pair: number, after: number | undefined, quad?: number): void {
    if (after === undefined) this.next.fill(-1, pair * 8, pair * 8 + 8);
    else this.next[pair * 8 + (after >>> 5)]! |= 1 << (after & 31);
    if (after === undefined || quad === undefined) {
      this.pairs[pair] = 2;
      return;
    }
    if (this.pairs[pair] === 0) this.pairs[pair] = 1;
    const slot = quadSlot(quad);
    this.quads[slot >>> 5]! |= 1 << (slot & 31);
  }
}

/**
 * The chunk search's scan: positions whose byte pair is some magic's anchor and whose next byte may follow it in
 * one of those magics (the tables of SignatureScanner).
 */
export class PairSearch {
  private readonly instance = new SearchInstance();

  constructor(tables: PairTables) {
    const { exports, bytes } = this.instance;
    bytes.set(tables.pairs, exports.pair_table());
    // the same table indexed by the pair as a little-endian word (second byte << 8 | first), search.c's block test
    const le = exports.pair_le();
    for (let pair = 0; pair < 65536; pair++) if (tables.pairs[pair]) bytes[le + (((pair & 0xff) << 8) | (pair >>> 8))] = 1;
    bytes.set(new Uint8Array(tables.quads.buffer, tables.quads.byteOffset, tables.quads.byteLength), exports.quad_filter());
    // only the rows of the pairs that start a literal: search.c reads no other, and a new instance's are zero
    // (copying all 2 MiB of them cost ~5 ms per instance, two of which every scan makes)
    const rows = new Uint8Array(tables.next.buffer, tables.next.byteOffset, tables.next.byteLength);
    const at = exports.next_byte();
    for (let pair = 0; pair < 65536; pair++) {
      if (tables.pairs[pair]) bytes.set(rows.subarray(pair * 32, pair * 32 + 32), at + pair * 32);
    }
  }

  /** Calls `visit(i)` for each candidate position i in [0, end) of `data`, in order; end < data.length. */
  search(data: Uint8Array, end: number, visit: (i: number) => void): void {
    const { exports, countAt, outAt, dataAt } = this.instance;
    for (let start = 0; start < end; start += WINDOW) {
      const positions = Math.min(end, start + WINDOW) - start;
      // the window's own length, so that its last positions see their next three bytes, or their absence, as the data does
      const length = Math.min(data.length, start + positions + 3) - start;
      this.instance.scan(data, start, length, positions, (from) => exports.pair_candidates(dataAt, length, from, positions, outAt, CAP, countAt), visit);
    }
  }
}

/**
 * The crypto scanner's scan: positions whose 4-byte little-endian window hashes to a slot of its anchor filter
 * (MultiPatternScanner's bit set of 2^18 bits).
 */
export class AnchorSearch {
  private readonly instance = new SearchInstance();

  constructor(filter: Int32Array) {
    const { exports, bytes } = this.instance;
    bytes.set(new Uint8Array(filter.buffer, filter.byteOffset, filter.byteLength), exports.anchor_filter());
  }

  /** Calls `visit(i)` for each candidate position i in [from, end) of `data`, in order; positions whose window would pass the data's end are not candidates. */
  search(data: Uint8Array, from: number, end: number, visit: (i: number) => void): void {
    const { exports, countAt, outAt, dataAt } = this.instance;
    const last = Math.min(end, data.length - 3);
    for (let start = from; start < last; start += WINDOW) {
      const positions = Math.min(last, start + WINDOW) - start;
      this.instance.scan(data, start, positions + 3, positions, (at) => exports.anchor_candidates(dataAt, at, positions, outAt, CAP, countAt), visit);
    }
  }
}

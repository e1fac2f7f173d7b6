// One pass, many patterns: finds every occurrence of a fixed set of byte patterns in a stream with bounded
// memory. Each pattern is indexed by a 4-byte anchor (its most varied window); a rolling 32-bit window over the
// input is tested against a hashed bitmap of anchors, and only bitmap hits are looked up and verified. The cost
// is one table probe per input byte whatever the number of patterns (the idea of a hashed-prefix multi-pattern
// matcher, as in Wu-Manber), and memory is one chunk plus a carry of twice the longest pattern.
// Some constant tables have no rare window (AES's round constants as 32-bit words: 01 00 00 00 02 00 00 00 ...):
// their anchor matches every few hundred bytes of a binary, ~7,000 times per MB of /usr/bin, and each match was a
// call into Node's Buffer.compare. A second 4-byte window of the pattern (its check) is compared first, in
// JavaScript, and only a pattern whose check matches is compared whole.
// The bitmap is a bit set of 2^18 bits (32 KiB), not a byte per slot (1 MiB): it is read at a random place for
// every input byte, and a megabyte of it did not stay in a core's cache beside the data (a fifth faster over
// 100 MB of /usr/bin and /usr/lib, same hits; the few hundred anchors leave ~0.1% of the bits set). The loop over
// the input runs in WebAssembly (wasm/search.ts, AnchorSearch): it hands back the positions whose window hits the
// bitmap, and the candidates are looked up and compared here.

import { AnchorSearch } from '../wasm/search.js';

/** The bitmap's size as a power of two; search.c's anchor_candidates shifts by 32 minus this. */
const FILTER_BITS = 18;

interface Candidate {
  pattern: number;
  /** Offset of the anchor inside the pattern. */
  anchor: number;
  /** Offset of the check window inside the pattern, and its bytes as a little-endian 32-bit word. */
  check: number;
  checkWord: number;
}

export type HitHandler = (pattern: number, offset: number) => void;

/** In a stream of chunks: this many bytes of the stream that are not searched (no match spans them). */
export interface StreamGap {
  skip: number;
}

/**
 * The pattern's most varied 4-byte window: most distinct bytes, then fewest 0x00/0xff; the first such window.
 * `apart`: only windows that do not overlap the one at that offset (the check beside an anchor); the anchor itself
 * when there is none.
 */
function anchorOffset(bytes: Buffer, apart?: number): number {
  let best = apart ?? 0;
  let bestScore = -1;
  for (let at = 0; at + 4 <= bytes.length; at++) {
    if (apart !== undefined && at > apart - 4 && at < apart + 4) continue;
    // plain loops, no Set or subarray per window: the constant tables have thousands of windows (every start-up)
    let distinct = 0;
    let plain = 0;
    for (let k = at; k < at + 4; k++) {
      const b = bytes[k]!;
      let seen = false;
      for (let j = at; j < k; j++) if (bytes[j] === b) seen = true;
      if (!seen) distinct++;
      if (b === 0 || b === 0xff) plain++;
    }
    const score = distinct * 4 - plain;
    if (score > bestScore) {
      best = at;
      bestScore = score;
      // four distinct bytes, none 0x00/0xff: no later window can score more (most tables' first window is one)
      if (score === 16) break;
    }
  }
  return best;
}

export class MultiPatternScanner {
  /** Bit set of the anchors' hashes: bit `hash & 31` of word `hash >>> 5`. */
  private readonly filter = new Int32Array(1 << (FILTER_BITS - 5));
  private readonly table = new Map<number, Candidate[]>();
  readonly maxLength: number;
  private readonly search: AnchorSearch;

  constructor(private readonly patterns: readonly Buffer[]) {
    let max = 4;
    patterns.forEach((bytes, pattern) => {
      if (bytes.length < 4) throw new Error(`pattern ${pattern} is shorter than 4 bytes`);
      max = Math.max(max, bytes.length);
      const anchor = anchorOffset(bytes);
      const key = bytes.readUInt32LE(anchor);
      const slot = Math.imul(key, 0x9e3779b1) >>> (32 - FILTER_BITS);
      this.filter[slot >>> 5]! |= 1 << (slot & 31);
      const check = anchorOffset(bytes, anchor);
      const candidate = { pattern, anchor, check, checkWord: bytes.readInt32LE(check) };
      const list = this.table.get(key);
      if (list) list.push(candidate);
      else this.table.set(key, [candidate]);
    });
    this.maxLength = max;
    this.search = new AnchorSearch(this.filter);
  }

  /** Scans a whole buffer; offsets are relative to `base`. */
  scanBuffer(data: Buffer, onHit: HitHandler, base = 0): void {
    this.scanRange(data, 0, data.length - 3, true, base, onHit);
  }

  /**
   * Scans a stream of chunks; every occurrence is reported once, with its offset in the stream (gaps count in the
   * offsets, and the total returned, but are not searched). A large chunk is
   * scanned where it lies: only the seam with the bytes before it is copied (joining every chunk to the tail of
   * the one before copied each whole chunk: about a twentieth of the pass over a large tree).
   */
  async scanStream(chunks: AsyncIterable<Buffer | Uint8Array | string | StreamGap>, onHit: HitHandler, signal?: AbortSignal): Promise<number> {
    const m = this.maxLength;
    // The stream's last bytes not yet scanned as anchors from `from` on, with m bytes before them (a pattern's
    // start precedes its anchor by less than m); `base` is the stream offset of carry[0].
    let carry: Buffer = Buffer.alloc(0);
    let from = 0;
    let base = 0;
    for await (const raw of chunks) {
      signal?.throwIfAborted();
      if (typeof raw === 'object' && !(raw instanceof Uint8Array)) {
        // a gap: the bytes before it are scanned to their end, and the stream goes on after it
        this.scanRange(carry, from, carry.length - 3, true, base, onHit);
        base += carry.length + raw.skip;
        carry = Buffer.alloc(0);
        from = 0;
        continue;
      }
      const chunk = typeof raw === 'string' ? Buffer.from(raw, 'latin1') : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
      if (chunk.length >= 4 * m) {
        // the seam: anchors from `from` to m bytes into the chunk, then the chunk's own, then its last 2m bytes carry
        const seam = Buffer.concat([carry, chunk.subarray(0, 2 * m)]);
        this.scanRange(seam, from, carry.length + m, false, base, onHit);
        const at = base + carry.length; // the chunk's stream offset
        this.scanRange(chunk, m, chunk.length - m, false, at, onHit);
        carry = Buffer.from(chunk.subarray(chunk.length - 2 * m));
        from = m;
        base = at + chunk.length - 2 * m;
        continue;
      }
      const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      const end = data.length - m;
      if (end <= from) {
        carry = Buffer.from(data);
        continue;
      }
      this.scanRange(data, from, end, false, base, onHit);
      const keep = Math.max(0, end - m);
      carry = Buffer.from(data.subarray(keep));
      from = end - keep;
      base += keep;
    }
    this.scanRange(carry, from, carry.length - 3, true, base, onHit);
    return base + carry.length;
  }

  /** Tests anchor positions [from, end); with `final`, patterns are bounds-checked against the data's end. */
  private scanRange(data: Buffer, from: number, end: number, final: boolean, base: number, onHit: HitHandler): void {
    if (end <= from || data.length < 4) return;
    this.search.search(data, from, end, (i) => {
      const candidates = this.table.get((data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24)) >>> 0);
      if (!candidates) return;
      for (const { pattern, anchor, check, checkWord } of candidates) {
        const start = i - anchor;
        const bytes = this.patterns[pattern]!;
        if (start < 0 || (final && start + bytes.length > data.length)) continue;
        const at = start + check;
        if (at + 4 <= data.length && (data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16) | (data[at + 3]! << 24)) !== checkWord) continue;
        if (data.compare(bytes, 0, bytes.length, start, start + bytes.length) === 0) onHit(pattern, base + start);
      }
    });
  }
}

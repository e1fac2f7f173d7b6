// Signature search for the driver: finds every handler magic at every offset of a file, reading it in bounded
// windows (with an overlap so a magic across a window edge is still found) and searching each window in one
// pass: a table indexed by byte pairs says which patterns to compare at a position. Each magic is keyed by its
// rarest byte pair (its anchor), not its first two bytes: a magic starting with 00 00 keyed on those would be
// compared at every position of every run of zeros. A second table, of the byte after the pair, turns away most
// positions whose pair is common in text ("us" of "ustar", "ve" of a TP-Link header) before any magic is compared.
// Candidates come out in chunk-start order, and the consumer can skip ahead past an accepted chunk so its inside
// is never searched. The pass over the bytes with both tables runs in WebAssembly (wasm/search.ts, PairSearch);
// the magics are compared here at the positions it hands back.
import { PairSearch, PairTables } from '../wasm/search.js';
import type { Handler, Reader } from './handler.js';

export interface Candidate {
  /** Where the chunk would start (match position minus the magic's offset). */
  start: number;
  handler: Handler;
  /** Position of the handler in the registry: the tie-break after confidence. */
  order: number;
}

const WINDOW = 4 * 1024 * 1024;

interface Pattern {
  bytes: Buffer;
  offset: number;
  handler: Handler;
  order: number;
  /** Index in `bytes` of the byte pair the pattern is looked up by. */
  anchor: number;
}

/** How common a byte is in firmware: zero and 0xFF fill, then printable text, then the rest. */
function byteCost(b: number): number {
  if (b === 0x00 || b === 0xff) return 4;
  return b >= 0x20 && b < 0x7f ? 2 : 1;
}

/** Index of the least common byte pair of a magic (first one on ties). */
export function anchorOf(bytes: Buffer): number {
  let best = 0;
  let bestCost = Infinity;
  for (let i = 0; i + 1 < bytes.length; i++) {
    const cost = byteCost(bytes[i]!) + byteCost(bytes[i + 1]!) + (bytes[i] === bytes[i + 1] ? 2 : 0);
    if (cost < bestCost) {
      best = i;
      bestCost = cost;
    }
  }
  return best;
}

export class SignatureScanner {
  private readonly carving: Pattern[] = [];
  private readonly atStart: Pattern[] = [];
  private readonly maxMagicEnd: number;
  private readonly maxOffset: number;
  private readonly maxAnchor: number;
  /** Patterns by their anchor pair (b0 << 8 | b1); one-byte magics are searched with indexOf. */
  private readonly byPrefix: Array<Pattern[] | undefined> = new Array<Pattern[] | undefined>(65536);
  private readonly oneByte: Pattern[] = [];

  constructor(private readonly handlers: readonly Handler[]) {
    handlers.forEach((handler, order) => {
      for (const magic of handler.magics) {
        if (magic.bytes.length === 0) continue;
        const pattern = { bytes: magic.bytes, offset: magic.offset ?? 0, handler, order, anchor: anchorOf(magic.bytes) };
        (handler.onlyAtStart ? this.atStart : this.carving).push(pattern);
      }
    });
    for (const p of this.carving) {
      if (p.bytes.length < 2) {
        this.oneByte.push(p);
        continue;
      }
      (this.byPrefix[pairOf(p)] ??= []).push(p);
    }
    this.maxOffset = Math.max(0, ...this.carving.map((p) => p.offset));
    this.maxMagicEnd = Math.max(1, ...this.carving.map((p) => p.offset + p.bytes.length));
    this.maxAnchor = Math.max(0, ...this.carving.map((p) => p.anchor));
  }

  /**
   * Yields candidates in order of start (then confidence, then registry order). `skipTo()` returns the
   * position the consumer has consumed up to: candidates starting before it are dropped and the search jumps.
   */
  async *candidates(reader: Reader, skipTo: () => number, signal?: AbortSignal): AsyncGenerator<Candidate> {
    const seen = new Set<string>();
    const pending: Candidate[] = [];
    const push = (c: Candidate) => {
      const key = `${c.start}:${c.order}`;
      if (seen.has(key)) return;
      seen.add(key);
      pending.push(c);
    };

    // Short or weak magics: only at the very start of the file.
    if (this.atStart.length > 0) {
      const head = await reader.read(0, Math.max(...this.atStart.map((p) => p.offset + p.bytes.length)));
      for (const p of this.atStart) {
        if (head.length >= p.offset + p.bytes.length && head.subarray(p.offset, p.offset + p.bytes.length).equals(p.bytes)) {
          push({ start: 0, handler: p.handler, order: p.order });
        }
      }
    }

    let pos = 0; // next match position to search from
    while (pos < reader.size || pending.length > 0) {
      signal?.throwIfAborted();
      let scannedTo = reader.size; // every chunk start below scannedTo - maxOffset has been seen
      if (pos < reader.size && this.carving.length > 0) {
        const windowEnd = Math.min(reader.size, pos + WINDOW);
        // Matches must begin inside [pos, windowEnd); the extra bytes let them (and anchors past their start) finish.
        // searched before the next await: a transient read's buffer (Reader.readTransient) is not kept
        const length = windowEnd - pos + this.maxMagicEnd;
        const data = reader.readTransient ? reader.readTransient(pos, length) : await reader.read(pos, length);
        this.search(data, windowEnd - pos, (at, p) => {
          const start = pos + at - p.offset;
          if (start >= 0) push({ start, handler: p.handler, order: p.order });
        });
        pos = windowEnd;
        scannedTo = windowEnd >= reader.size ? reader.size + this.maxOffset : windowEnd;
      } else {
        pos = reader.size;
        scannedTo = reader.size + this.maxOffset;
      }

      // Emit what can no longer be preceded by a later find.
      pending.sort(compare);
      const ready = scannedTo - this.maxOffset;
      let emitted = 0;
      while (emitted < pending.length && pending[emitted]!.start < ready) {
        const candidate = pending[emitted++]!;
        if (candidate.start < skipTo()) continue;
        yield candidate;
      }
      pending.splice(0, emitted);
      if (pending.length === 0) seen.clear();

      // Jump past an accepted chunk: its inside is not searched.
      const consumed = skipTo();
      if (consumed > pos) {
        pos = consumed;
        for (let i = pending.length - 1; i >= 0; i--) if (pending[i]!.start < consumed) pending.splice(i, 1);
      }
    }
  }

  /** Calls `found` for every pattern whose match begins at a position in [0, limit) of `data`. */
  private search(data: Buffer, limit: number, found: (at: number, p: Pattern) => void): void {
    // A plain Uint8Array view keeps the loop's element loads monomorphic.
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.length);
    const byPrefix = this.byPrefix;
    this.pairSearch().search(bytes, Math.min(limit + this.maxAnchor, bytes.length - 1), (i) => {
      const patterns = byPrefix[(bytes[i]! << 8) | bytes[i + 1]!]!;
      for (let j = 0; j < patterns.length; j++) {
        const p = patterns[j]!;
        const at = i - p.anchor;
        if (at >= 0 && at < limit && matchesAt(bytes, at, p.bytes)) found(at, p);
      }
    });
    for (const p of this.oneByte) {
      for (let at = data.indexOf(p.bytes); at !== -1 && at < limit; at = data.indexOf(p.bytes, at + 1)) found(at, p);
    }
  }

  /**
   * The pair scan of this scanner's magics, made with its tables on the first search of the handler list: each
   * anchor pair, and the byte after the anchor in each of its magics (any byte when a magic ends with its anchor).
   */
  private pairSearch(): PairSearch {
    let search = pairSearches.get(this.handlers);
    if (!search) {
      const tables = new PairTables();
      for (const p of this.carving) if (p.bytes.length >= 2) tables.add(pairOf(p), p.bytes[p.anchor + 2], quadOf(p));
      search = new PairSearch(tables);
      pairSearches.set(this.handlers, search);
    }
    return search;
  }
}

/**
 * The pair scans by handler list: the driver makes a SignatureScanner per unpacking, always of the same list, and
 * an instance's memory (its tables, 2.1 MiB) is better made once.
 */
const pairSearches = new WeakMap<readonly Handler[], PairSearch>();

/** A magic's anchor pair (its bytes at the anchor and after, b0 << 8 | b1). */
function pairOf(p: Pattern): number {
  return (p.bytes[p.anchor]! << 8) | p.bytes[p.anchor + 1]!;
}

/** A magic's four bytes from its anchor on, as a little-endian word; undefined when it has fewer. */
function quadOf(p: Pattern): number | undefined {
  const { bytes, anchor } = p;
  return anchor + 4 <= bytes.length ? bytes[anchor]! | (bytes[anchor + 1]! << 8) | (bytes[anchor + 2]! << 16) | (bytes[anchor + 3]! << 24) : undefined;
}

/** Whether `bytes` sits at `at` of `data` (the search's plain Uint8Array view, so its loads stay monomorphic). */
function matchesAt(data: Uint8Array, at: number, bytes: Uint8Array): boolean {
  if (at < 0 || at + bytes.length > data.length) return false;
  for (let i = 0; i < bytes.length; i++) if (data[at + i] !== bytes[i]) return false;
  return true;
}

function compare(a: Candidate, b: Candidate): number {
  return a.start - b.start || (b.handler.confidence ?? 50) - (a.handler.confidence ?? 50) || a.order - b.order;
}

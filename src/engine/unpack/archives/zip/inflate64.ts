// Deflate64 ("enhanced deflate", zip method 9), written from RFC 1951 and PKWARE's description of the differences:
// a 64 KiB window, length code 285 meaning 3 + a 16-bit extra value (instead of 258), and distance codes 30 and 31
// (32769 and 49153, 14 extra bits each). No maintained npm package decodes it. The compressed entry is read into
// memory (bounded); the output is yielded in pieces, so a bomb meets the sink's byte budget as it grows.
import { FormatError } from '../../../format-error.js';
import type { Reader } from '../../handler.js';

const MAX_INPUT = 64 * 1024 * 1024;
const WINDOW = 64 * 1024;
const OUT_PIECE = 64 * 1024;

const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 3];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 16];
const DIST_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
  32769, 49153,
];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14];
/** Order of the code-length code lengths in a dynamic block header. */
const CLEN_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
const MAX_BITS = 15;

/** A canonical Huffman code as a lookup table indexed by the next MAX_BITS input bits (LSB first): symbol << 4 | length. */
function huffmanTable(lengths: ArrayLike<number>): Int32Array {
  const count = new Array<number>(MAX_BITS + 1).fill(0);
  for (let i = 0; i < lengths.length; i++) count[lengths[i]!]!++;
  count[0] = 0;
  const next = new Array<number>(MAX_BITS + 2).fill(0);
  let code = 0;
  for (let bits = 1; bits <= MAX_BITS; bits++) {
    code = (code + count[bits - 1]!) << 1;
    next[bits] = code;
  }
  const table = new Int32Array(1 << MAX_BITS).fill(-1);
  for (let symbol = 0; symbol < lengths.length; symbol++) {
    const len = lengths[symbol]!;
    if (len === 0) continue;
    const c = next[len]!++;
    if (c >= 1 << len) throw new FormatError('deflate64: over-subscribed Huffman code');
    let reversed = 0;
    for (let i = 0; i < len; i++) reversed |= ((c >> i) & 1) << (len - 1 - i);
    for (let fill = reversed; fill < 1 << MAX_BITS; fill += 1 << len) table[fill] = (symbol << 4) | len;
  }
  return table;
}

/** The fixed code's two tables, made at the first block that uses them (not when the engine loads: ~5 ms). */
let fixed: [Int32Array, Int32Array] | undefined;
const fixedTables = (): [Int32Array, Int32Array] =>
  (fixed ??= [huffmanTable([...new Array<number>(144).fill(8), ...new Array<number>(112).fill(9), ...new Array<number>(24).fill(7), ...new Array<number>(8).fill(8)]), huffmanTable(new Array<number>(32).fill(5))]);

class Inflater {
  private pos = 0;
  private bitBuf = 0;
  private bitCount = 0;
  private readonly window = Buffer.alloc(WINDOW);
  private windowPos = 0;
  /** Bytes written so far (the window is full once this reaches WINDOW). */
  total = 0;
  private out = Buffer.alloc(OUT_PIECE);
  private outPos = 0;

  constructor(private readonly input: Buffer) {}

  private bits(n: number): number {
    while (this.bitCount < n) {
      if (this.pos >= this.input.length) throw new FormatError('deflate64: truncated stream');
      this.bitBuf |= this.input[this.pos++]! << this.bitCount;
      this.bitCount += 8;
    }
    const value = this.bitBuf & ((1 << n) - 1);
    this.bitBuf >>>= n;
    this.bitCount -= n;
    return value;
  }

  /** A 16-bit extra value needs two reads: the bit buffer holds at most 31 bits safely. */
  private extra(n: number): number {
    return n > 8 ? this.bits(8) | (this.bits(n - 8) << 8) : this.bits(n);
  }

  private symbol(table: Int32Array): number {
    while (this.bitCount < MAX_BITS && this.pos < this.input.length) {
      this.bitBuf |= this.input[this.pos++]! << this.bitCount;
      this.bitCount += 8;
    }
    const entry = table[this.bitBuf & ((1 << MAX_BITS) - 1)]!;
    const len = entry & 15;
    if (entry < 0 || len > this.bitCount) throw new FormatError(entry < 0 ? 'deflate64: invalid Huffman code' : 'deflate64: truncated stream');
    this.bitBuf >>>= len;
    this.bitCount -= len;
    return entry >> 4;
  }

  private put(byte: number): Buffer | undefined {
    this.window[this.windowPos] = byte;
    this.windowPos = (this.windowPos + 1) & (WINDOW - 1);
    this.total++;
    this.out[this.outPos++] = byte;
    if (this.outPos < OUT_PIECE) return undefined;
    const full = this.out;
    this.out = Buffer.alloc(OUT_PIECE);
    this.outPos = 0;
    return full;
  }

  private dynamicTables(): [Int32Array, Int32Array] {
    const hlit = this.bits(5) + 257;
    const hdist = this.bits(5) + 1;
    const hclen = this.bits(4) + 4;
    const clens = new Array<number>(19).fill(0);
    for (let i = 0; i < hclen; i++) clens[CLEN_ORDER[i]!] = this.bits(3);
    const clTable = huffmanTable(clens);
    const lengths: number[] = [];
    while (lengths.length < hlit + hdist) {
      const sym = this.symbol(clTable);
      if (sym < 16) lengths.push(sym);
      else if (sym === 16) {
        if (lengths.length === 0) throw new FormatError('deflate64: repeat with no previous length');
        const prev = lengths[lengths.length - 1]!;
        for (let n = 3 + this.bits(2); n > 0; n--) lengths.push(prev);
      } else for (let n = sym === 17 ? 3 + this.bits(3) : 11 + this.bits(7); n > 0; n--) lengths.push(0);
    }
    if (lengths.length > hlit + hdist) throw new FormatError('deflate64: code lengths overrun');
    return [huffmanTable(lengths.slice(0, hlit)), huffmanTable(lengths.slice(hlit))];
  }

  /** Decodes the whole stream, yielding full output pieces as they fill and the rest at the end. */
  *run(): Generator<Buffer, number> {
    let last = 0;
    while (!last) {
      last = this.bits(1);
      const type = this.bits(2);
      if (type === 0) {
        this.bitBuf = 0;
        this.bitCount = 0; // stored: byte-aligned
        if (this.pos + 4 > this.input.length) throw new FormatError('deflate64: truncated stored block');
        const len = this.input.readUInt16LE(this.pos);
        if ((len ^ 0xffff) !== this.input.readUInt16LE(this.pos + 2)) throw new FormatError('deflate64: stored block length check failed');
        this.pos += 4;
        if (this.pos + len > this.input.length) throw new FormatError('deflate64: truncated stored block');
        for (let i = 0; i < len; i++) {
          const piece = this.put(this.input[this.pos + i]!);
          if (piece) yield piece;
        }
        this.pos += len;
        continue;
      }
      if (type === 3) throw new FormatError('deflate64: reserved block type');
      const [litlen, dist] = type === 1 ? fixedTables() : this.dynamicTables();
      for (;;) {
        const sym = this.symbol(litlen);
        if (sym < 256) {
          const piece = this.put(sym);
          if (piece) yield piece;
          continue;
        }
        if (sym === 256) break;
        const li = sym - 257;
        if (li >= LENGTH_BASE.length) throw new FormatError(`deflate64: invalid length code ${sym}`);
        const length = LENGTH_BASE[li]! + this.extra(LENGTH_EXTRA[li]!);
        const di = this.symbol(dist);
        if (di >= DIST_BASE.length) throw new FormatError(`deflate64: invalid distance code ${di}`);
        const distance = DIST_BASE[di]! + this.extra(DIST_EXTRA[di]!);
        if (distance > Math.min(this.total, WINDOW)) throw new FormatError(`deflate64: distance ${distance} reaches before the start of the output`);
        for (let i = 0; i < length; i++) {
          const piece = this.put(this.window[(this.windowPos - distance) & (WINDOW - 1)]!);
          if (piece) yield piece;
        }
      }
    }
    if (this.outPos > 0) yield this.out.subarray(0, this.outPos);
    return this.pos;
  }
}

/** Decodes the Deflate64 stream in [start, end) of `reader`; returns the compressed bytes it used. */
export async function* inflate64Blocks(reader: Reader, start: number, end: number, signal?: AbortSignal): AsyncGenerator<Buffer, number> {
  if (end - start > MAX_INPUT) throw new FormatError(`deflate64: ${end - start} compressed bytes, more than the ${MAX_INPUT} this decoder holds in memory`);
  const inflater = new Inflater(await reader.readExact(start, end - start));
  const pieces = inflater.run();
  for (;;) {
    signal?.throwIfAborted();
    const next = pieces.next();
    if (next.done) return next.value;
    yield next.value;
  }
}

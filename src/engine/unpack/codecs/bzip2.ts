// A streaming bzip2 decoder written from the format (Seward's bzip2 1.0 file format, as described in
// "bzip2 format specification", J. Gilchrist): Huffman + MTF + RUNA/RUNB, inverse BWT, RLE1, per-block and
// combined CRCs. It decodes one block at a time from a bounded window of the file and knows the exact byte where
// the stream ends, which no JavaScript bzip2 library reports.
import { FormatError } from '../../format-error.js';
import type { Reader } from '../handler.js';

const BLOCK_MAGIC_HI = 0x314159;
const BLOCK_MAGIC_LO = 0x265359;
const EOS_MAGIC_HI = 0x177245;
const EOS_MAGIC_LO = 0x385090;
/** A compressed block is at most a little over its 900 kB input: keep this much ahead of the decoder. */
const LOOKAHEAD = 2 * 1024 * 1024 + 65536;
const OUT_PIECE = 1024 * 1024;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 24;
    for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    table[i] = c >>> 0;
  }
  return table;
})();

class BitWindow {
  buf = Buffer.alloc(0);
  /** File offset of buf[0]. */
  base: number;
  pos = 0;
  acc = 0;
  count = 0;

  constructor(
    private readonly reader: Reader,
    start: number,
  ) {
    this.base = start;
  }

  /** Makes sure LOOKAHEAD bytes (or the rest of the file) are in memory. */
  async fill(): Promise<void> {
    if (this.buf.length - this.pos >= LOOKAHEAD) return;
    const have = this.base + this.buf.length;
    if (have >= this.reader.size) return;
    const more = await this.reader.read(have, LOOKAHEAD);
    this.buf = Buffer.concat([this.buf.subarray(this.pos), more]);
    this.base += this.pos;
    this.pos = 0;
  }

  bits(n: number): number {
    while (this.count < n) {
      if (this.pos >= this.buf.length) {
        const atEof = this.base + this.buf.length >= this.reader.size;
        throw new FormatError(atEof ? 'bzip2: truncated stream' : 'bzip2: block larger than any valid block');
      }
      this.acc = ((this.acc << 8) | this.buf[this.pos++]!) >>> 0;
      this.count += 8;
    }
    this.count -= n;
    return (this.acc >>> this.count) & ((1 << n) - 1);
  }

  bit(): number {
    return this.bits(1);
  }

  /** File offset just past the last byte that bits were taken from. */
  get offset(): number {
    return this.base + this.pos - Math.floor(this.count / 8);
  }
}

interface HuffTable {
  minLen: number;
  maxLen: number;
  limit: Int32Array;
  base: Int32Array;
  perm: Uint16Array;
}

function buildTable(lengths: Uint8Array, alphaSize: number): HuffTable {
  let minLen = 32;
  let maxLen = 0;
  for (let i = 0; i < alphaSize; i++) {
    minLen = Math.min(minLen, lengths[i]!);
    maxLen = Math.max(maxLen, lengths[i]!);
  }
  const limit = new Int32Array(maxLen + 2).fill(-1);
  const base = new Int32Array(maxLen + 2);
  const perm = new Uint16Array(alphaSize);
  let code = 0;
  let idx = 0;
  for (let len = minLen; len <= maxLen; len++) {
    const first = idx;
    base[len] = code - first;
    for (let s = 0; s < alphaSize; s++) if (lengths[s] === len) perm[idx++] = s;
    code += idx - first;
    limit[len] = code - 1;
    code <<= 1;
  }
  return { minLen, maxLen, limit, base, perm };
}

function decodeSymbol(w: BitWindow, t: HuffTable): number {
  let len = t.minLen;
  let code = w.bits(len);
  while (len <= t.maxLen) {
    if (code <= t.limit[len]!) return t.perm[code - t.base[len]!]!;
    code = (code << 1) | w.bit();
    len++;
  }
  throw new FormatError('bzip2: invalid Huffman code');
}

/** Reads one block's symbols into tt (the BWT vector); returns its length and origin pointer. */
function readBlock(w: BitWindow, tt: Uint32Array, maxBlock: number): { n: number; origPtr: number } {
  if (w.bit()) throw new FormatError('bzip2: randomised blocks (bzip2 0.9.0) are not supported');
  const origPtr = w.bits(24);
  const inUse: number[] = [];
  const groupsUsed = w.bits(16);
  for (let i = 0; i < 16; i++) {
    if (!(groupsUsed & (0x8000 >> i))) continue;
    const bits = w.bits(16);
    for (let j = 0; j < 16; j++) if (bits & (0x8000 >> j)) inUse.push(i * 16 + j);
  }
  if (inUse.length === 0) throw new FormatError('bzip2: block uses no symbols');
  const alphaSize = inUse.length + 2;
  const nGroups = w.bits(3);
  if (nGroups < 2 || nGroups > 6) throw new FormatError(`bzip2: invalid number of Huffman groups ${nGroups}`);
  const nSelectors = w.bits(15);
  if (nSelectors < 1) throw new FormatError('bzip2: no selectors');
  const groupMtf = [0, 1, 2, 3, 4, 5].slice(0, nGroups);
  const selectors = new Uint8Array(nSelectors);
  for (let i = 0; i < nSelectors; i++) {
    let j = 0;
    while (w.bit()) if (++j >= nGroups) throw new FormatError('bzip2: invalid selector');
    const g = groupMtf[j]!;
    groupMtf.splice(j, 1);
    groupMtf.unshift(g);
    selectors[i] = g;
  }
  const tables: HuffTable[] = [];
  for (let g = 0; g < nGroups; g++) {
    const lengths = new Uint8Array(alphaSize);
    let len = w.bits(5);
    for (let s = 0; s < alphaSize; s++) {
      for (;;) {
        if (len < 1 || len > 20) throw new FormatError('bzip2: invalid code length');
        if (!w.bit()) break;
        len += w.bit() ? -1 : 1;
      }
      lengths[s] = len;
    }
    tables.push(buildTable(lengths, alphaSize));
  }

  const mtf = inUse.slice();
  const eob = alphaSize - 1;
  let n = 0;
  let groupLeft = 0;
  let sel = 0;
  let table = tables[0]!;
  let run = 0;
  let runWeight = 1;
  for (;;) {
    if (groupLeft === 0) {
      if (sel >= nSelectors) throw new FormatError('bzip2: ran out of selectors');
      table = tables[selectors[sel++]!]!;
      groupLeft = 50;
    }
    groupLeft--;
    const sym = decodeSymbol(w, table);
    if (sym <= 1) {
      run += runWeight << sym;
      runWeight <<= 1;
      if (run > maxBlock) throw new FormatError('bzip2: run exceeds the block size');
      continue;
    }
    if (run > 0) {
      if (n + run > maxBlock) throw new FormatError('bzip2: block exceeds its declared size');
      tt.fill(mtf[0]!, n, n + run);
      n += run;
      run = 0;
      runWeight = 1;
    }
    if (sym === eob) break;
    if (n >= maxBlock) throw new FormatError('bzip2: block exceeds its declared size');
    const value = mtf[sym - 1]!;
    mtf.splice(sym - 1, 1);
    mtf.unshift(value);
    tt[n++] = value;
  }
  if (origPtr >= n) throw new FormatError('bzip2: origin pointer outside the block');
  return { n, origPtr };
}

/**
 * Decodes the bzip2 stream(s) starting at `start` (concatenated streams continue one payload, as bunzip2 does),
 * yielding decoded pieces; returns the offset just past the last stream.
 */
export async function* bzip2Blocks(reader: Reader, start: number, signal?: AbortSignal): AsyncGenerator<Buffer, number> {
  const w = new BitWindow(reader, start);
  let end = start;
  for (let streamIndex = 0; ; streamIndex++) {
    await w.fill();
    const streamStart = w.offset;
    if (streamIndex > 0) {
      // Another stream follows only if a full header + block/EOS magic is there.
      const peek = await reader.read(streamStart, 10);
      if (!isStreamHeader(peek)) return end;
    }
    if (w.bits(8) !== 0x42 || w.bits(8) !== 0x5a || w.bits(8) !== 0x68) throw new FormatError('bzip2: bad stream header');
    const level = w.bits(8) - 0x30;
    if (level < 1 || level > 9) throw new FormatError('bzip2: bad block size');
    const maxBlock = level * 100000;
    const tt = new Uint32Array(maxBlock);
    let combined = 0;
    for (;;) {
      signal?.throwIfAborted();
      await w.fill();
      const hi = w.bits(24);
      const lo = w.bits(24);
      if (hi === EOS_MAGIC_HI && lo === EOS_MAGIC_LO) {
        const stored = ((w.bits(16) << 16) | w.bits(16)) >>> 0;
        if (stored !== combined) throw new FormatError('bzip2: combined CRC mismatch');
        w.count -= w.count % 8; // the stream is padded to a byte boundary
        end = w.offset;
        break;
      }
      if (hi !== BLOCK_MAGIC_HI || lo !== BLOCK_MAGIC_LO) throw new FormatError('bzip2: bad block magic');
      const blockCrc = ((w.bits(16) << 16) | w.bits(16)) >>> 0;
      const { n, origPtr } = readBlock(w, tt, maxBlock);
      const crc = yield* emitBlock(tt, n, origPtr);
      if (crc !== blockCrc) throw new FormatError('bzip2: block CRC mismatch');
      combined = (((combined << 1) | (combined >>> 31)) ^ crc) >>> 0;
    }
  }
}

/** Inverse BWT + RLE1 decode of one block; yields output pieces and returns the block CRC. */
function* emitBlock(tt: Uint32Array, n: number, origPtr: number): Generator<Buffer, number> {
  const cftab = new Uint32Array(257);
  for (let i = 0; i < n; i++) cftab[(tt[i]! & 0xff) + 1]!++;
  for (let i = 1; i < 257; i++) cftab[i]! += cftab[i - 1]!;
  for (let i = 0; i < n; i++) {
    const b = tt[i]! & 0xff;
    tt[cftab[b]!++]! |= i << 8;
  }
  let crc = 0xffffffff;
  let out = Buffer.allocUnsafe(OUT_PIECE);
  let o = 0;
  let entry = tt[tt[origPtr]! >>> 8]!;
  let last = -1;
  let same = 0;
  for (let k = 0; k < n; k++) {
    const b = entry & 0xff;
    entry = tt[entry >>> 8]!;
    let reps = 1;
    let value = b;
    if (same === 4) {
      reps = b;
      value = last;
      same = 0;
    } else if (b === last) {
      same++;
    } else {
      same = 1;
      last = b;
    }
    for (let r = 0; r < reps; r++) {
      crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ value) & 0xff]!) >>> 0;
      out[o++] = value;
      if (o === OUT_PIECE) {
        yield out;
        out = Buffer.allocUnsafe(OUT_PIECE);
        o = 0;
      }
    }
  }
  if (o > 0) yield out.subarray(0, o);
  return ~crc >>> 0;
}

export function isStreamHeader(b: Buffer): boolean {
  if (b.length < 10 || b[0] !== 0x42 || b[1] !== 0x5a || b[2] !== 0x68 || b[3]! < 0x31 || b[3]! > 0x39) return false;
  const magic = b.subarray(4, 10).toString('hex');
  return magic === '314159265359' || magic === '177245385090';
}

// The symbol names of a raw (decompressed, not ELF) Linux kernel image, read from the compressed kallsyms tables
// that CONFIG_KALLSYMS links into it. Their layout, in every kernel since 2.6.10:
//   kallsyms_num_syms      the number of symbols (a long, or a 32-bit int since 6.x)
//   kallsyms_names         per symbol: a length byte (two bytes when above 0x7f, since 6.1) and that many token indices
//   kallsyms_markers       the offset in kallsyms_names of every 256th symbol (long or u32)
//   kallsyms_token_table   256 NUL-terminated strings; a byte used as-is in a symbol name stands for itself
//   kallsyms_token_index   256 u16 offsets of the tokens in the token table
// The token table is found by its single-character tokens '0'..'9' (bytes 0x30..0x39 stand for themselves), the
// endianness by the token index that follows it, then the markers backwards from the table and the names from the
// number of symbols before them. Each decoded name starts with its type letter (t/T text, d/D data, ...).
// Returns undefined when the tables are not found or do not agree with each other.

/** Text symbols (function names) of a raw kernel image, undefined when it has no readable kallsyms tables. */
export function kallsymsNames(image: Buffer): string[] | undefined {
  const digits = Buffer.from('0\x001\x002\x003\x004\x005\x006\x007\x008\x009\x00', 'latin1');
  for (let at = image.indexOf(digits); at >= 0; at = image.indexOf(digits, at + 1)) {
    const names = decodeAt(image, at);
    if (names) return names;
  }
  return undefined;
}

function decodeAt(image: Buffer, digitsAt: number): string[] | undefined {
  // back 0x30 tokens from '0' to the table's start
  let start = digitsAt;
  for (let k = 0; k < 0x30; k++) {
    if (start < 2 || image[start - 1] !== 0) return undefined;
    start -= 1;
    while (start > 0 && image[start - 1] !== 0) start--;
  }
  const tokens: string[] = [];
  const offsets: number[] = [];
  let p = start;
  for (let i = 0; i < 256; i++) {
    const end = image.indexOf(0, p);
    if (end < 0 || end - p > 64) return undefined;
    offsets.push(p - start);
    tokens.push(image.toString('latin1', p, end));
    p = end + 1;
  }
  const endian = tokenIndexEndian(image, p, offsets);
  if (!endian) return undefined;
  const markers = readMarkers(image, start, endian);
  if (!markers) return undefined;
  return readNames(image, markers, tokens, endian);
}

type Endian = 'le' | 'be';
const u16 = (b: Buffer, at: number, e: Endian) => (e === 'le' ? b.readUInt16LE(at) : b.readUInt16BE(at));
const u32 = (b: Buffer, at: number, e: Endian) => (e === 'le' ? b.readUInt32LE(at) : b.readUInt32BE(at));

/** The token index right after the table (at an alignment up to 8) must hold the tokens' offsets. */
function tokenIndexEndian(image: Buffer, after: number, offsets: number[]): Endian | undefined {
  for (let at = after; at < after + 8 && at + 512 <= image.length; at++) {
    if (at % 2 !== 0) continue;
    for (const e of ['le', 'be'] as const) {
      if (offsets.every((o, i) => u16(image, at + 2 * i, e) === o)) return e;
    }
  }
  return undefined;
}

interface Markers {
  /** Offsets of symbols 0, 256, 512, ... in kallsyms_names. */
  values: number[];
  /** Where kallsyms_markers begins. */
  at: number;
  word: 4 | 8;
}

/** kallsyms_markers, read backwards from the token table: strictly decreasing to its first value, 0. */
function readMarkers(image: Buffer, tableStart: number, endian: Endian): Markers | undefined {
  let best: Markers | undefined;
  for (const word of [4, 8] as const) {
    let end = tableStart - (tableStart % word);
    // alignment padding between the markers and the table
    while (end - word >= 0 && end > tableStart - 16 && readWord(image, end - word, word, endian) === 0) end -= word;
    const values: number[] = [];
    for (let at = end - word; at >= 0; at -= word) {
      const v = readWord(image, at, word, endian);
      if (v === undefined || (values.length > 0 && v >= values[values.length - 1]!)) return best;
      // gaps between markers are 256 names of a few bytes each
      if (values.length > 0 && values[values.length - 1]! - v > 256 * 260) break;
      values.push(v);
      if (v === 0) {
        const found = { values: values.reverse(), at, word };
        if (!best || found.values.length > best.values.length) best = found;
        break;
      }
    }
  }
  return best;
}

function readWord(image: Buffer, at: number, word: 4 | 8, endian: Endian): number | undefined {
  if (at < 0 || at + word > image.length) return undefined;
  if (word === 4) return u32(image, at, endian);
  const big = endian === 'le' ? image.readBigUInt64LE(at) : image.readBigUInt64BE(at);
  return big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(big);
}

/** Length of the names entry at `at`: one byte, or two when the first has its top bit set (6.1+). */
function entryLength(image: Buffer, at: number, wide: boolean): [number, number] {
  const first = image[at]!;
  if (wide && first & 0x80) return [(first & 0x7f) | (image[at + 1]! << 7), 2];
  return [first, 1];
}

/** Finds kallsyms_num_syms and kallsyms_names before the markers and decodes the text symbols. */
function readNames(image: Buffer, markers: Markers, tokens: string[], endian: Endian): string[] | undefined {
  const blocks = markers.values.length;
  const last = markers.values[blocks - 1]!;
  // the names end before the markers; the last block holds at most 256 entries of at most 2 + 255 bytes
  for (const wide of [false, true]) {
    for (let names = markers.at - last - 1; names >= 0 && names > markers.at - last - 256 * 257; names--) {
      const count = numSymsBefore(image, names, blocks, endian);
      if (count === undefined) continue;
      const out = walk(image, names, count, markers, tokens, wide);
      if (out) return out;
    }
  }
  return undefined;
}

/** The symbol count stored right before the names (at their alignment), when it fits the number of markers. */
function numSymsBefore(image: Buffer, names: number, blocks: number, endian: Endian): number | undefined {
  for (const word of [4, 8] as const) {
    if (names % word !== 0) continue;
    const n = readWord(image, names - word, word, endian);
    if (n !== undefined && n > 0 && Math.ceil(n / 256) === blocks) return n;
  }
  return undefined;
}

function walk(image: Buffer, names: number, count: number, markers: Markers, tokens: string[], wide: boolean): string[] | undefined {
  const out: string[] = [];
  let p = names;
  for (let i = 0; i < count; i++) {
    if (i % 256 === 0 && p - names !== markers.values[i / 256]) return undefined;
    if (p >= markers.at) return undefined;
    const [length, head] = entryLength(image, p, wide);
    if (length === 0) return undefined;
    p += head;
    let name = '';
    for (let k = 0; k < length; k++) name += tokens[image[p + k]!];
    p += length;
    if (name[0] === 't' || name[0] === 'T' || name[0] === 'w' || name[0] === 'W') out.push(name.slice(1));
  }
  return p <= markers.at ? out : undefined;
}

// EFI and Tiano decompression (UEFI spec "Compression Algorithm Specification"; EDK II's BaseUefiDecompressLib
// describes the decoder): an 8-byte header (compressed size, original size) and blocks of LZ77 symbols coded
// with three canonical Huffman tables (symbol/length, position, and the table that codes the symbol lengths).
// EFI and Tiano differ only in the bit width of the position-table size: 4 and 5.
import { FormatError } from '../../format-error.js';

const BITBUFSIZ = 32;
const MAXMATCH = 256;
const THRESHOLD = 3;
const CODE_BIT = 16;
const NC = 0xff + MAXMATCH + 2 - THRESHOLD; // 510 symbol/length codes
const CBIT = 9;
const MAXPBIT = 5;
const TBIT = 5;
const MAXNP = (1 << MAXPBIT) - 1;
const NT = CODE_BIT + 3;
const NPT = Math.max(NT, MAXNP);

class Decoder {
  private bitBuf = 0;
  private subBitBuf = 0;
  private bitCount = 0;
  private inPos = 8;
  private remaining: number;
  private blockSize = 0;
  private readonly left = new Uint16Array(2 * NC - 1);
  private readonly right = new Uint16Array(2 * NC - 1);
  private readonly cLen = new Uint8Array(NC);
  private readonly ptLen = new Uint8Array(NPT);
  private readonly cTable = new Uint16Array(4096);
  private readonly ptTable = new Uint16Array(256);

  constructor(
    private readonly src: Buffer,
    compressedSize: number,
    private readonly pBit: number,
  ) {
    this.remaining = compressedSize;
    this.fill(BITBUFSIZ);
  }

  private fill(n: number): void {
    this.bitBuf = n >= 32 ? 0 : (this.bitBuf << n) >>> 0;
    while (n > this.bitCount) {
      n -= this.bitCount;
      this.bitBuf = (this.bitBuf | (n >= 32 ? 0 : this.subBitBuf << n)) >>> 0;
      // Past the end of the compressed data the decoder reads zeros, as the reference does.
      this.subBitBuf = this.remaining > 0 && this.inPos < this.src.length ? this.src[this.inPos++]! : 0;
      if (this.remaining > 0) this.remaining--;
      this.bitCount = 8;
    }
    this.bitCount -= n;
    this.bitBuf = (this.bitBuf | (this.subBitBuf >>> this.bitCount)) >>> 0;
  }

  private bits(n: number): number {
    const out = this.bitBuf >>> (BITBUFSIZ - n);
    this.fill(n);
    return out;
  }

  /** Builds the lookup table (and overflow tree) of a canonical code; false when the lengths are inconsistent. */
  private makeTable(count: number, bitLen: Uint8Array, tableBits: number, table: Uint16Array): void {
    const counts = new Uint32Array(17);
    const start = new Uint32Array(18);
    const weight = new Uint32Array(17);
    for (let i = 0; i < count; i++) {
      if (bitLen[i]! > 16) throw new FormatError('efi-decompress: code length over 16 bits');
      counts[bitLen[i]!]++;
    }
    for (let i = 1; i <= 16; i++) start[i + 1] = start[i]! + (counts[i]! << (16 - i));
    if (start[17] !== 1 << 16) throw new FormatError('efi-decompress: bad Huffman table');
    const juBits = 16 - tableBits;
    for (let i = 1; i <= tableBits; i++) {
      start[i] = start[i]! >>> juBits;
      weight[i] = 1 << (tableBits - i);
    }
    for (let i = tableBits + 1; i <= 16; i++) weight[i] = 1 << (16 - i);
    let index = start[tableBits + 1]! >>> juBits;
    if (index !== 0) table.fill(0, index, 1 << tableBits);
    let avail = count;
    const mask = 1 << (15 - tableBits);
    for (let ch = 0; ch < count; ch++) {
      const len = bitLen[ch]!;
      if (len === 0) continue;
      const next = start[len]! + weight[len]!;
      if (len <= tableBits) {
        if (next > table.length) throw new FormatError('efi-decompress: bad Huffman table');
        table.fill(ch, start[len]!, next);
      } else {
        // Codes longer than the table continue in a binary tree hanging off the table entry.
        let code = start[len]!;
        let holder: Uint16Array = table;
        let slot = code >>> juBits;
        for (let i = len - tableBits; i > 0; i--) {
          if (holder[slot] === 0) {
            if (avail >= 2 * NC - 1) throw new FormatError('efi-decompress: Huffman tree overflow');
            this.right[avail] = 0;
            this.left[avail] = 0;
            holder[slot] = avail++;
          }
          const node = holder[slot]!;
          holder = code & mask ? this.right : this.left;
          slot = node;
          code <<= 1;
        }
        holder[slot] = ch;
      }
      start[len] = next;
    }
  }

  private readPtLen(nn: number, nbit: number, special: number): void {
    const number = this.bits(nbit);
    if (number > nn) throw new FormatError('efi-decompress: bad code-length table size');
    if (number === 0) {
      const ch = this.bits(nbit);
      this.ptTable.fill(ch);
      this.ptLen.fill(0, 0, nn);
      return;
    }
    let index = 0;
    while (index < number && index < NPT) {
      let ch = this.bitBuf >>> (BITBUFSIZ - 3);
      if (ch === 7) {
        let mask = 1 << (BITBUFSIZ - 1 - 3);
        while (mask & this.bitBuf) {
          mask >>>= 1;
          ch++;
        }
        if (ch > 16) throw new FormatError('efi-decompress: code length over 16 bits');
      }
      this.fill(ch < 7 ? 3 : ch - 3);
      this.ptLen[index++] = ch;
      if (index === special) {
        let zeros = this.bits(2);
        while (zeros-- > 0 && index < NPT) this.ptLen[index++] = 0;
      }
    }
    while (index < nn && index < NPT) this.ptLen[index++] = 0;
    this.makeTable(nn, this.ptLen, 8, this.ptTable);
  }

  private walk(start: number, limit: number, tableBits: number): number {
    let value = start;
    let mask = 1 << (BITBUFSIZ - 1 - tableBits);
    while (value >= limit) {
      if (mask === 0) throw new FormatError('efi-decompress: bad Huffman code');
      value = this.bitBuf & mask ? this.right[value]! : this.left[value]!;
      mask >>>= 1;
    }
    return value;
  }

  private readCLen(): void {
    const number = this.bits(CBIT);
    if (number === 0) {
      const ch = this.bits(CBIT);
      this.cLen.fill(0);
      this.cTable.fill(ch);
      return;
    }
    if (number > NC) throw new FormatError('efi-decompress: bad symbol table size');
    let index = 0;
    while (index < number) {
      const ch = this.walk(this.ptTable[this.bitBuf >>> (BITBUFSIZ - 8)]!, NT, 8);
      this.fill(this.ptLen[ch]!);
      if (ch <= 2) {
        let zeros = ch === 0 ? 1 : ch === 1 ? this.bits(4) + 3 : this.bits(CBIT) + 20;
        while (zeros-- > 0 && index < NC) this.cLen[index++] = 0;
      } else {
        this.cLen[index++] = ch - 2;
      }
    }
    this.cLen.fill(0, index);
    this.makeTable(NC, this.cLen, 12, this.cTable);
  }

  decodeC(): number {
    if (this.blockSize === 0) {
      this.blockSize = this.bits(16);
      this.readPtLen(NT, TBIT, 3);
      this.readCLen();
      this.readPtLen(MAXNP, this.pBit, -1);
    }
    this.blockSize--;
    const index = this.walk(this.cTable[this.bitBuf >>> (BITBUFSIZ - 12)]!, NC, 12);
    this.fill(this.cLen[index]!);
    return index;
  }

  decodeP(): number {
    const value = this.walk(this.ptTable[this.bitBuf >>> (BITBUFSIZ - 8)]!, MAXNP, 8);
    this.fill(this.ptLen[value]!);
    return value > 1 ? (1 << (value - 1)) + this.bits(value - 1) : value;
  }
}

/**
 * Decompresses EFI ('efi', position-table width 4) or Tiano ('tiano', width 5) data with its 8-byte header.
 * Throws FormatError on a malformed stream or when the original size exceeds `maxOutput`.
 */
export function tianoDecompress(data: Buffer, variant: TianoVariant, maxOutput: number): Buffer {
  if (data.length < 8) throw new FormatError('efi-decompress: shorter than its 8-byte header');
  const compressedSize = data.readUInt32LE(0);
  const originalSize = data.readUInt32LE(4);
  if (compressedSize + 8 > data.length) throw new FormatError(`efi-decompress: truncated, ${compressedSize} compressed bytes declared, ${data.length - 8} present`);
  if (originalSize > maxOutput) throw new FormatError(`efi-decompress: original size ${originalSize} exceeds the limit of ${maxOutput} bytes`);
  const out = Buffer.alloc(originalSize);
  if (originalSize === 0) return out;
  const decoder = new Decoder(data, compressedSize, variant === 'efi' ? 4 : 5);
  let pos = 0;
  while (pos < originalSize) {
    const c = decoder.decodeC();
    if (c < 256) {
      out[pos++] = c;
      continue;
    }
    const length = c - (0xff + 1 - THRESHOLD);
    const from = pos - decoder.decodeP() - 1;
    if (from < 0) throw new FormatError(`efi-decompress: match distance before the start of the output at ${pos}`);
    for (let i = 0; i < length && pos < originalSize; i++) out[pos++] = out[from + i]!;
  }
  return out;
}

export type TianoVariant = 'efi' | 'tiano';

/**
 * Decodes data whose variant is not known for sure (vendors put Tiano streams where EFI ones belong): tries each
 * variant in `order` and returns what `accept` makes of the first output it accepts. A wrong variant usually fails
 * or yields garbage, so `accept` rejects an output by throwing FormatError; the first error is the one reported.
 */
export async function tianoDecompressEither<T>(
  data: Buffer,
  maxOutput: number,
  accept: (decoded: Buffer, variant: TianoVariant) => T | Promise<T>,
  order: readonly TianoVariant[] = ['efi', 'tiano'],
): Promise<T> {
  let firstError: FormatError | undefined;
  for (const variant of order) {
    try {
      return await accept(tianoDecompress(data, variant, maxOutput), variant);
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      firstError ??= error;
    }
  }
  throw firstError!;
}

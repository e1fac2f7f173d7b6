// A cheap check of the start of a zlib stream's body (RFC 1951 section 3.2 blocks, then the RFC 1950 Adler-32),
// for candidates found by the 2-byte zlib magic: stored and fixed-Huffman blocks are decoded in JavaScript, a
// dynamic block's header is checked, and a stream that ends inside the probe must match its checksum. Random
// bytes and machine code fail it about 99 times in 100 before any zlib object is made (making one costs about a
// hundred times more than this check). It never rejects a valid stream: what it cannot decide passes.

/** Deflate's bit order: least significant bit of each byte first; past the end reads zeros. */
class Bits {
  private at = 0;

  constructor(private readonly data: Buffer) {}

  get exhausted(): boolean {
    return this.at >= this.data.length * 8;
  }

  take(n: number): number {
    let value = 0;
    for (let i = 0; i < n; i++, this.at++) value |= (((this.data[this.at >> 3] ?? 0) >> (this.at & 7)) & 1) << i;
    return value;
  }

  /** Moves to the next byte boundary and returns the byte offset there. */
  toByte(): number {
    this.at = Math.ceil(this.at / 8) * 8;
    return this.at / 8;
  }

  skipBytes(n: number): void {
    this.at += n * 8;
  }
}

/** What the decoded output of a probe may grow to before the check stops deciding. */
const MAX_OUTPUT = 64 * 1024;

/** One buffer for every probe: the check is synchronous, so two never use it at once. */
const scratch = Buffer.allocUnsafe(MAX_OUTPUT);

/** The output decoded so far (capped at MAX_OUTPUT), for matches and the checksum. */
class Output {
  readonly bytes = scratch;
  length = 0;

  /** False when the output would pass the cap. */
  push(byte: number): boolean {
    if (this.length === MAX_OUTPUT) return false;
    this.bytes[this.length++] = byte;
    return true;
  }

  adler32(): number {
    let a = 1;
    let b = 0;
    for (let i = 0; i < this.length; i++) {
      a = (a + this.bytes[i]!) % 65521;
      b = (b + a) % 65521;
    }
    return (b * 65536 + a) >>> 0;
  }
}

/** A dynamic block's header: literal and distance counts in range and a complete code-length code (zlib refuses others). */
function dynamicHeaderValid(bits: Bits): boolean {
  const literals = bits.take(5) + 257;
  const distances = bits.take(5) + 1;
  const lengths = bits.take(4) + 4;
  if (literals > 286 || distances > 30) return false;
  // The lengths come in a permuted order, which does not change the Kraft sum: 2^(7 - length) over the used
  // lengths is 128 for a complete code.
  let kraft = 0;
  for (let i = 0; i < lengths; i++) {
    const length = bits.take(3);
    if (length > 0) kraft += 1 << (7 - length);
  }
  return kraft === 128;
}

/** Next symbol of the fixed literal/length code (codes are read most significant bit first). */
function fixedSymbol(bits: Bits): number {
  let code = 0;
  for (let length = 1; length <= 9; length++) {
    code = (code << 1) | bits.take(1);
    if (length === 7 && code <= 0b0010111) return 256 + code;
    if (length === 8 && code >= 0b00110000 && code <= 0b10111111) return code - 0b00110000;
    if (length === 8 && code >= 0b11000000 && code <= 0b11000111) return 280 + code - 0b11000000;
  }
  return 144 + code - 0b110010000;
}

/** Length of a length symbol 257..285, with its extra bits. */
function lengthOf(symbol: number, bits: Bits): number {
  if (symbol < 265) return symbol - 254;
  if (symbol === 285) return 258;
  const extra = (symbol - 261) >> 2;
  return ((4 + ((symbol - 265) & 3)) << extra) + 3 + bits.take(extra);
}

/** Distance of a fixed distance code 0..29 (five bits, most significant first), with its extra bits. */
function distanceOf(bits: Bits): number {
  let code = 0;
  for (let i = 0; i < 5; i++) code = (code << 1) | bits.take(1);
  if (code >= 30) return Number.POSITIVE_INFINITY;
  if (code < 4) return code + 1;
  const extra = (code >> 1) - 1;
  return ((2 + (code & 1)) << extra) + 1 + bits.take(extra);
}

type Verdict = 'invalid' | 'undecided' | 'block-end';

/** Decodes a fixed block: invalid on a reserved code or a match reaching before the start of the output. */
function fixedBlock(bits: Bits, out: Output): Verdict {
  while (!bits.exhausted) {
    const symbol = fixedSymbol(bits);
    if (symbol === 256) return 'block-end';
    if (symbol > 285) return 'invalid';
    if (symbol < 256) {
      if (!out.push(symbol)) return 'undecided';
      continue;
    }
    const length = lengthOf(symbol, bits);
    const distance = distanceOf(bits);
    if (distance > out.length) return 'invalid';
    for (let i = 0; i < length; i++) if (!out.push(out.bytes[out.length - distance]!)) return 'undecided';
  }
  return 'undecided';
}

/** Copies a stored block: invalid when its length is not followed by its complement. */
function storedBlock(bits: Bits, data: Buffer, out: Output): Verdict {
  const at = bits.toByte();
  if (at + 4 > data.length) return 'undecided';
  const length = data.readUInt16LE(at);
  if ((length ^ 0xffff) !== data.readUInt16LE(at + 2)) return 'invalid';
  for (let i = 0; i < length; i++) if (at + 4 + i >= data.length || !out.push(data[at + 4 + i]!)) return 'undecided';
  bits.skipBytes(4 + length);
  return 'block-end';
}

/**
 * False when `body` (what follows a zlib header) cannot be the start of a zlib stream's deflate data and
 * Adler-32; true when it may be.
 */
export function plausibleZlibBody(body: Buffer): boolean {
  const bits = new Bits(body);
  const out = new Output();
  while (!bits.exhausted) {
    const final = bits.take(1);
    const type = bits.take(2);
    if (type === 3) return false;
    if (type === 2) return dynamicHeaderValid(bits);
    const verdict = type === 0 ? storedBlock(bits, body, out) : fixedBlock(bits, out);
    if (verdict !== 'block-end') return verdict === 'undecided';
    if (final) {
      const at = bits.toByte();
      return at + 4 > body.length || body.readUInt32BE(at) === out.adler32();
    }
  }
  return true;
}

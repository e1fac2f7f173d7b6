// JFFS2's rubin compressors (Linux fs/jffs2/compr_rubin.c): a binary arithmetic coder over the 8 bits of each byte,
// least significant first, with one fixed probability per bit position. "rubinmips" uses a built-in table (the
// probabilities of MIPS code, out of 1043); "dynrubin" stores its table (out of 256) in the first 8 bytes of the
// node. The coder keeps a 16-bit interval (low q, width p) and a 16-bit window of the input (rec_q), read MSB first.
//
// Which number means which is muddled: JFFS2 before 2.6 wrote dynrubin as compression type 5 (DYNRUBIN), while the
// compressor framework since 2.6 registers dynrubin under type 3 (RUBINMIPS) and rubinmips (decompress only) under
// type 5. Both types are therefore read as dynrubin when the node starts with a valid dynrubin table (8 non-zero
// probabilities, as its compressor always writes), and as rubinmips otherwise.
import { FormatError } from '../../../format-error.js';

const REG_SIZE = 16;
const UPPER = 1 << (REG_SIZE - 1);
const LOWER = UPPER - 1;
const MIPS_DIVIDER = 1043;
const MIPS_BITS = [277, 249, 290, 267, 229, 341, 212, 241];

class RubinDecoder {
  private p = 2 * UPPER;
  private q = 0;
  private recQ = 0;
  private bitPos = 0;

  constructor(
    private readonly input: Buffer,
    private readonly divider: number,
    private readonly bits: readonly number[],
  ) {
    for (let i = 0; i < REG_SIZE; i++) this.recQ = this.recQ * 2 + this.nextBit();
  }

  /** The next input bit, MSB first; past the end of the input the coder reads zeros. */
  private nextBit(): number {
    const byte = this.input[this.bitPos >> 3] ?? 0;
    const bit = (byte >> (7 - (this.bitPos & 7))) & 1;
    this.bitPos++;
    return bit;
  }

  /** One symbol whose probability of being 0 is a / (a + b). */
  private decodeBit(a: number, b: number): number {
    let { p, q } = this;
    if (q >= UPPER || p + q <= UPPER) {
      // Renormalise: shift the interval until it straddles the midpoint again, taking as many new input bits.
      let shifts = 0;
      do {
        shifts++;
        q = (q & LOWER) << 1;
        p <<= 1;
      } while (q >= UPPER || p + q <= UPPER);
      let recQ = this.recQ;
      for (let i = 0; i < shifts; i++) recQ = ((recQ & LOWER) << 1) + this.nextBit();
      this.recQ = recQ;
    }
    let split = Math.floor((a * p) / (a + b));
    if (split <= 0) split = 1;
    if (split >= p) split = p - 1;
    const symbol = this.recQ >= q + split ? 1 : 0;
    if (symbol) {
      q += split;
      split = p - split;
    }
    this.p = split;
    this.q = q;
    return symbol;
  }

  /** The coder reads exactly the bits the encoder wrote: reading past them means the input was cut short. */
  get overran(): boolean {
    return this.bitPos > this.input.length * 8;
  }

  byte(): number {
    let out = 0;
    for (let i = 0; i < 8; i++) out |= this.decodeBit(this.divider - this.bits[i]!, this.bits[i]!) << i;
    return out;
  }
}

function decodeWith(input: Buffer, divider: number, bits: readonly number[], size: number): Buffer {
  const decoder = new RubinDecoder(input, divider, bits);
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i++) out[i] = decoder.byte();
  if (decoder.overran) throw new FormatError(`rubin: input of ${input.length} bytes ends before ${size} bytes are decoded`);
  return out;
}

/** rubinmips: no header, the fixed MIPS table. */
export function rubinmipsDecompress(input: Buffer, size: number): Buffer {
  return decodeWith(input, MIPS_DIVIDER, MIPS_BITS, size);
}

/** dynrubin: an 8-byte table of bit probabilities (out of 256), then the coded bits. */
export function dynrubinDecompress(input: Buffer, size: number): Buffer {
  if (input.length < 8) throw new FormatError('dynrubin data shorter than its 8-byte table');
  return decodeWith(input.subarray(8), 256, [...input.subarray(0, 8)], size);
}

/** A node of type 3 or 5: dynrubin when it starts with a valid table, rubinmips otherwise (see the header). */
export function rubinDecompress(input: Buffer, size: number): Buffer {
  const table = input.subarray(0, 8);
  return input.length > 8 && !table.includes(0) ? dynrubinDecompress(input, size) : rubinmipsDecompress(input, size);
}

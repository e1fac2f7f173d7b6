// An LZMA1 decoder in JavaScript, written from the LZMA specification (LZMA SDK lzma-specification and LzmaSpec.cpp),
// that keeps no output beyond the history its matches need. Extraction goes through liblzma; this one answers the
// two questions liblzma does not: where a stream without an end marker really ends (end-finder.ts) and whether a
// candidate stream breaks within its first bytes (early-break.ts).
import type { LzmaProps } from '../../codecs/blocks.js';

const TOP = 1 << 24;
const PROB_INIT = 1024;
const STATES = 12;
const POS_STATES_MAX = 16;
const END_POS_MODEL = 14;
const FULL_DISTANCES = 128;
const MATCH_MIN = 2;

/**
 * Why decoding stopped, thrown from inside a symbol. 'distance' (a match reaching before the first byte, or a repeat
 * before any) is an error liblzma reports too, at the same symbol; 'direct' (a range coder that cannot be right) and
 * 'input' (no more bytes) are not errors to liblzma. Not an Error: it never leaves its caller, and an Error's stack
 * trace cost 15 µs per candidate stream, more than decoding it (early-break.ts).
 */
export class Broken {
  constructor(readonly reason: 'distance' | 'direct' | 'input') {}
}

/** Where the decoder reads its bytes: `ready` while the next symbol's bytes are there (or all that is left is). */
export interface ByteInput {
  readonly ready: boolean;
  readonly pos: number;
  /** The next byte; throws Broken('input') past the end. */
  byte(): number;
}

class LenDecoder {
  choice = new Uint16Array(2);
  low = new Uint16Array(POS_STATES_MAX << 3);
  mid = new Uint16Array(POS_STATES_MAX << 3);
  high = new Uint16Array(256);
}

/** A point where the range coder was finished (its code 0) after a symbol: the input read so far and the bytes out. */
export interface Finished {
  end: number;
  size: number;
}

export class Lzma1Decoder {
  /** Bytes decoded so far. */
  total = 0;
  /** The last symbol boundary with the range coder finished, or null. */
  lastFinished: Finished | null = null;
  /** The range coder's code after the last symbol (0 when it was finished there). */
  code = 0;

  private range = 0xffffffff;
  private input!: ByteInput;
  private readonly dict: Uint8Array;
  private dictPos = 0;
  private state = 0;
  private rep0 = 0;
  private rep1 = 0;
  private rep2 = 0;
  private rep3 = 0;
  private readonly literal: Uint16Array;
  private readonly isMatch = new Uint16Array(STATES << 4);
  private readonly isRep = new Uint16Array(STATES);
  private readonly isRepG0 = new Uint16Array(STATES);
  private readonly isRepG1 = new Uint16Array(STATES);
  private readonly isRepG2 = new Uint16Array(STATES);
  private readonly isRep0Long = new Uint16Array(STATES << 4);
  private readonly posSlot = new Uint16Array(4 << 6);
  private readonly posDecoders = new Uint16Array(1 + FULL_DISTANCES - END_POS_MODEL);
  private readonly align = new Uint16Array(16);
  private readonly lenDecoder = new LenDecoder();
  private readonly repLenDecoder = new LenDecoder();
  /** Every probability table, set to PROB_INIT by reset(). */
  private readonly tables: Uint16Array[];

  /** `history`: the bytes of output kept for matches (a match reaching further back breaks the decoder). */
  constructor(
    private readonly props: Pick<LzmaProps, 'lc' | 'lp' | 'pb'>,
    history: number,
  ) {
    this.dict = new Uint8Array(history);
    this.literal = new Uint16Array(0x300 << (props.lc + props.lp));
    const { lenDecoder: len, repLenDecoder: repLen } = this;
    this.tables = [this.literal, this.isMatch, this.isRep, this.isRepG0, this.isRepG1, this.isRepG2, this.isRep0Long, this.posSlot, this.posDecoders, this.align];
    for (const d of [len, repLen]) this.tables.push(d.choice, d.low, d.mid, d.high);
    this.reset();
  }

  /** Back to a new stream's state, reusing the tables (a decoder for many short streams). */
  reset(): void {
    this.total = 0;
    this.lastFinished = null;
    this.code = 0;
    this.range = 0xffffffff;
    this.dictPos = 0;
    this.state = this.rep0 = this.rep1 = this.rep2 = this.rep3 = 0;
    for (const probs of this.tables) probs.fill(PROB_INIT);
  }

  /** Reads the range coder's first five bytes; false when they cannot start a stream (a first byte other than 0). */
  start(input: ByteInput): boolean {
    this.input = input;
    if (input.byte() !== 0) return false;
    for (let i = 0; i < 4; i++) this.code = ((this.code * 256) >>> 0) + input.byte();
    return this.code !== this.range;
  }

  /**
   * Decodes symbols while the input is ready and fewer than `limit` bytes are out: 'input' when it needs more,
   * 'limit', or 'end-marker'. Throws Broken.
   */
  run(limit = Infinity): 'input' | 'limit' | 'end-marker' {
    const { input, dict } = this;
    const { lc, lp, pb } = this.props;
    while (this.total < limit) {
      if (!input.ready) return 'input';
      const posState = this.total & ((1 << pb) - 1);
      const state = this.state;
      if (this.bit(this.isMatch, (state << 4) + posState) === 0) {
        const prev = this.total > 0 ? this.back(0) : 0;
        const base = 0x300 * (((this.total & ((1 << lp) - 1)) << lc) + (prev >>> (8 - lc)));
        let symbol = 1;
        if (state >= 7) {
          let matchByte = this.back(this.rep0);
          do {
            const matchBit = (matchByte >>> 7) & 1;
            matchByte <<= 1;
            const b = this.bit(this.literal, base + ((1 + matchBit) << 8) + symbol);
            symbol = (symbol << 1) | b;
            if (matchBit !== b) break;
          } while (symbol < 0x100);
        }
        while (symbol < 0x100) symbol = (symbol << 1) | this.bit(this.literal, base + symbol);
        this.put(symbol & 0xff);
        this.state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      } else {
        let len: number;
        if (this.bit(this.isRep, state) === 0) {
          this.rep3 = this.rep2;
          this.rep2 = this.rep1;
          this.rep1 = this.rep0;
          len = this.length(this.lenDecoder, posState);
          this.state = state < 7 ? 7 : 10;
          const slot = this.tree(this.posSlot, Math.min(len, 3) << 6, 6);
          if (slot < 4) this.rep0 = slot;
          else {
            const directBits = (slot >>> 1) - 1;
            let dist = ((2 | (slot & 1)) << directBits) >>> 0;
            if (slot < END_POS_MODEL) dist += this.reverseTree(this.posDecoders, dist - slot, directBits);
            else dist = (dist + (this.direct(directBits - 4) << 4) + this.reverseTree(this.align, 0, 4)) >>> 0;
            this.rep0 = dist;
          }
          if (this.rep0 === 0xffffffff) return 'end-marker';
        } else {
          if (this.total === 0) throw new Broken('distance'); // a repeat before any byte
          if (this.bit(this.isRepG0, state) === 0) {
            if (this.bit(this.isRep0Long, (state << 4) + posState) === 0) {
              if (this.rep0 >= Math.min(this.total, dict.length)) throw new Broken('distance');
              this.state = state < 7 ? 9 : 11;
              this.put(this.back(this.rep0));
              this.finishedHere();
              continue;
            }
          } else {
            let dist: number;
            if (this.bit(this.isRepG1, state) === 0) dist = this.rep1;
            else {
              if (this.bit(this.isRepG2, state) === 0) dist = this.rep2;
              else {
                dist = this.rep3;
                this.rep3 = this.rep2;
              }
              this.rep2 = this.rep1;
            }
            this.rep1 = this.rep0;
            this.rep0 = dist;
          }
          len = this.length(this.repLenDecoder, posState);
          this.state = state < 7 ? 8 : 11;
        }
        if (this.rep0 >= Math.min(this.total, dict.length)) throw new Broken('distance');
        for (let n = len + MATCH_MIN; n > 0; n--) this.put(this.back(this.rep0));
      }
      this.finishedHere();
    }
    return 'limit';
  }

  private finishedHere(): void {
    if (this.code === 0) this.lastFinished = { end: this.input.pos, size: this.total };
  }

  private bit(probs: Uint16Array, i: number): number {
    const prob = probs[i]!;
    const bound = (this.range >>> 11) * prob;
    let result: number;
    if (this.code < bound) {
      this.range = bound;
      probs[i] = prob + ((2048 - prob) >>> 5);
      result = 0;
    } else {
      this.range -= bound;
      this.code -= bound;
      probs[i] = prob - (prob >>> 5);
      result = 1;
    }
    if (this.range < TOP) {
      this.range = (this.range * 256) >>> 0;
      this.code = ((this.code * 256) >>> 0) + this.input.byte();
    }
    return result;
  }

  private direct(count: number): number {
    let result = 0;
    for (let i = 0; i < count; i++) {
      this.range >>>= 1;
      let b = 0;
      if (this.code >= this.range) {
        this.code -= this.range;
        b = 1;
      }
      if (this.code === this.range) throw new Broken('direct');
      result = ((result << 1) | b) >>> 0;
      if (this.range < TOP) {
        this.range = (this.range * 256) >>> 0;
        this.code = ((this.code * 256) >>> 0) + this.input.byte();
      }
    }
    return result;
  }

  private tree(probs: Uint16Array, offset: number, bits: number): number {
    let m = 1;
    for (let i = 0; i < bits; i++) m = (m << 1) + this.bit(probs, offset + m);
    return m - (1 << bits);
  }

  private reverseTree(probs: Uint16Array, offset: number, bits: number): number {
    let m = 1;
    let symbol = 0;
    for (let i = 0; i < bits; i++) {
      const b = this.bit(probs, offset + m);
      m = (m << 1) + b;
      symbol |= b << i;
    }
    return symbol;
  }

  private length(d: LenDecoder, posState: number): number {
    if (this.bit(d.choice, 0) === 0) return this.tree(d.low, posState << 3, 3);
    if (this.bit(d.choice, 1) === 0) return 8 + this.tree(d.mid, posState << 3, 3);
    return 16 + this.tree(d.high, 0, 8);
  }

  private put(byte: number): void {
    this.dict[this.dictPos] = byte;
    this.dictPos = this.dictPos + 1 === this.dict.length ? 0 : this.dictPos + 1;
    this.total++;
  }

  private back(distance: number): number {
    const at = this.dictPos - distance - 1;
    return this.dict[at < 0 ? at + this.dict.length : at]!;
  }
}

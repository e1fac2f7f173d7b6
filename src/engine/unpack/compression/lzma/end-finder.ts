// Where an LZMA1 stream without an end marker really ends when other data follows it. liblzma only says where it
// broke, some way into the next data; this decoder, written from the LZMA specification (LZMA SDK lzma-specification
// and LzmaSpec.cpp), also watches its range coder: the encoder flushes every byte of its low value at the end, so
// right after the last symbol the decoder's code is exactly 0, which mid-stream happens with odds of about 2^-32 per
// symbol. The last symbol boundary with code 0 before the decoder breaks is the stream's end. It decodes only to find
// that point (output is discarded; extraction still goes through liblzma), and runs only in that fallback.
import { parseLzmaPropsByte } from '../../codecs/blocks.js';
import type { Reader } from '../../handler.js';

const TOP = 1 << 24;
const PROB_INIT = 1024;
const STATES = 12;
const POS_STATES_MAX = 16;
const END_POS_MODEL = 14;
const FULL_DISTANCES = 128;
const MATCH_MIN = 2;
const WINDOW = 64 * 1024;
/** Dictionaries above this are not held (the fallback then stays approximate). */
const MAX_DICT = 64 * 1024 * 1024;

class Broken extends Error {}

/** No symbol reads more bytes than this: the input is topped up to it before each one. */
const LOOKAHEAD = 512;

class Input {
  private buf: Buffer = Buffer.alloc(0);
  private bufAt = 0;
  pos: number;

  constructor(
    private readonly reader: Reader,
    start: number,
    private readonly end: number,
  ) {
    this.pos = start;
  }

  /** Whether the next symbol's bytes are buffered (or all that is left is). */
  get ready(): boolean {
    const buffered = this.bufAt + this.buf.length;
    return buffered - this.pos >= LOOKAHEAD || buffered >= this.end;
  }

  async fill(): Promise<void> {
    this.buf = await this.reader.read(this.pos, Math.min(WINDOW, this.end - this.pos));
    this.bufAt = this.pos;
  }

  byte(): number {
    const i = this.pos - this.bufAt;
    if (i >= this.buf.length) throw new Broken('input ended');
    this.pos++;
    return this.buf[i]!;
  }
}

class LenDecoder {
  choice = new Uint16Array(2).fill(PROB_INIT);
  low = new Uint16Array(POS_STATES_MAX << 3).fill(PROB_INIT);
  mid = new Uint16Array(POS_STATES_MAX << 3).fill(PROB_INIT);
  high = new Uint16Array(256).fill(PROB_INIT);
}

export interface StreamEnd {
  /** Absolute offset just past the stream's last byte. */
  end: number;
  /** Uncompressed size. */
  size: number;
}

/**
 * Decodes the raw LZMA1 stream at `streamStart` (properties `props`, dictionary `dictSize`) until it breaks or reaches
 * `limit`, and returns the last point where the range coder was finished, or null when there was none. `sizeHint`
 * bounds the history kept when the stream's size is roughly known (past it, only garbage is decoded).
 */
export async function findLzmaEnd(
  reader: Reader,
  streamStart: number,
  props: number,
  dictSize: number,
  limit: number,
  { signal, sizeHint = Infinity }: { signal?: AbortSignal; sizeHint?: number } = {},
): Promise<StreamEnd | null> {
  const p = parseLzmaPropsByte(props, dictSize);
  if (!p) return null;
  const { lc, lp, pb } = p;
  const input = new Input(reader, streamStart, limit);
  // No match reaches further back than the output: a stream known to be small needs no larger history.
  const history = Math.min(p.dictSize, Math.max(sizeHint, 4096));
  if (history > MAX_DICT) return null;
  const dict = new Uint8Array(history);
  let dictPos = 0;
  let total = 0;
  const literal = new Uint16Array(0x300 << (lc + lp)).fill(PROB_INIT);
  const isMatch = new Uint16Array(STATES << 4).fill(PROB_INIT);
  const isRep = new Uint16Array(STATES).fill(PROB_INIT);
  const isRepG0 = new Uint16Array(STATES).fill(PROB_INIT);
  const isRepG1 = new Uint16Array(STATES).fill(PROB_INIT);
  const isRepG2 = new Uint16Array(STATES).fill(PROB_INIT);
  const isRep0Long = new Uint16Array(STATES << 4).fill(PROB_INIT);
  const posSlot = new Uint16Array(4 << 6).fill(PROB_INIT);
  const posDecoders = new Uint16Array(1 + FULL_DISTANCES - END_POS_MODEL).fill(PROB_INIT);
  const align = new Uint16Array(16).fill(PROB_INIT);
  const lenDecoder = new LenDecoder();
  const repLenDecoder = new LenDecoder();

  let range = 0xffffffff;
  let code = 0;
  const bit = (probs: Uint16Array, i: number): number => {
    const prob = probs[i]!;
    const bound = (range >>> 11) * prob;
    let result: number;
    if (code < bound) {
      range = bound;
      probs[i] = prob + ((2048 - prob) >>> 5);
      result = 0;
    } else {
      range -= bound;
      code -= bound;
      probs[i] = prob - (prob >>> 5);
      result = 1;
    }
    if (range < TOP) {
      range = (range * 256) >>> 0;
      code = ((code * 256) >>> 0) + input.byte();
    }
    return result;
  };
  const direct = (count: number): number => {
    let result = 0;
    for (let i = 0; i < count; i++) {
      range >>>= 1;
      let b = 0;
      if (code >= range) {
        code -= range;
        b = 1;
      }
      if (code === range) throw new Broken('corrupt direct bits');
      result = ((result << 1) | b) >>> 0;
      if (range < TOP) {
        range = (range * 256) >>> 0;
        code = ((code * 256) >>> 0) + input.byte();
      }
    }
    return result;
  };
  const tree = (probs: Uint16Array, offset: number, bits: number): number => {
    let m = 1;
    for (let i = 0; i < bits; i++) m = (m << 1) + bit(probs, offset + m);
    return m - (1 << bits);
  };
  const reverseTree = (probs: Uint16Array, offset: number, bits: number): number => {
    let m = 1;
    let symbol = 0;
    for (let i = 0; i < bits; i++) {
      const b = bit(probs, offset + m);
      m = (m << 1) + b;
      symbol |= b << i;
    }
    return symbol;
  };
  const length = (d: LenDecoder, posState: number): number => {
    if (bit(d.choice, 0) === 0) return tree(d.low, posState << 3, 3);
    if (bit(d.choice, 1) === 0) return 8 + tree(d.mid, posState << 3, 3);
    return 16 + tree(d.high, 0, 8);
  };
  const put = (byte: number) => {
    dict[dictPos] = byte;
    dictPos = dictPos + 1 === dict.length ? 0 : dictPos + 1;
    total++;
  };
  const back = (distance: number) => dict[dictPos - distance - 1 < 0 ? dictPos - distance - 1 + dict.length : dictPos - distance - 1]!;

  let last: StreamEnd | null = null;
  try {
    await input.fill();
    if (input.byte() !== 0) return null;
    for (let i = 0; i < 4; i++) code = ((code * 256) >>> 0) + input.byte();
    if (code === range) return null;
    let state = 0;
    let rep0 = 0;
    let rep1 = 0;
    let rep2 = 0;
    let rep3 = 0;
    for (;;) {
      if (!input.ready) {
        signal?.throwIfAborted();
        await input.fill();
      }
      const posState = total & ((1 << pb) - 1);
      if (bit(isMatch, (state << 4) + posState) === 0) {
        const prev = total > 0 ? back(0) : 0;
        const base = 0x300 * (((total & ((1 << lp) - 1)) << lc) + (prev >>> (8 - lc)));
        let symbol = 1;
        if (state >= 7) {
          let matchByte = back(rep0);
          do {
            const matchBit = (matchByte >>> 7) & 1;
            matchByte <<= 1;
            const b = bit(literal, base + ((1 + matchBit) << 8) + symbol);
            symbol = (symbol << 1) | b;
            if (matchBit !== b) break;
          } while (symbol < 0x100);
        }
        while (symbol < 0x100) symbol = (symbol << 1) | bit(literal, base + symbol);
        put(symbol & 0xff);
        state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      } else {
        let len: number;
        if (bit(isRep, state) === 0) {
          rep3 = rep2;
          rep2 = rep1;
          rep1 = rep0;
          len = length(lenDecoder, posState);
          state = state < 7 ? 7 : 10;
          const slot = tree(posSlot, Math.min(len, 3) << 6, 6);
          if (slot < 4) rep0 = slot;
          else {
            const directBits = (slot >>> 1) - 1;
            let dist = ((2 | (slot & 1)) << directBits) >>> 0;
            if (slot < END_POS_MODEL) dist += reverseTree(posDecoders, dist - slot, directBits);
            else dist = (dist + (direct(directBits - 4) << 4) + reverseTree(align, 0, 4)) >>> 0;
            rep0 = dist;
          }
          if (rep0 === 0xffffffff) return code === 0 ? { end: input.pos, size: total } : last; // an end marker after all
        } else {
          if (total === 0) throw new Broken('repeat match first');
          if (bit(isRepG0, state) === 0) {
            if (bit(isRep0Long, (state << 4) + posState) === 0) {
              if (rep0 >= Math.min(total, dict.length)) throw new Broken('distance past the data');
              state = state < 7 ? 9 : 11;
              put(back(rep0));
              if (code === 0) last = { end: input.pos, size: total };
              continue;
            }
          } else {
            let dist: number;
            if (bit(isRepG1, state) === 0) dist = rep1;
            else {
              if (bit(isRepG2, state) === 0) dist = rep2;
              else {
                dist = rep3;
                rep3 = rep2;
              }
              rep2 = rep1;
            }
            rep1 = rep0;
            rep0 = dist;
          }
          len = length(repLenDecoder, posState);
          state = state < 7 ? 8 : 11;
        }
        if (rep0 >= Math.min(total, dict.length)) throw new Broken('distance past the data');
        for (let n = len + MATCH_MIN; n > 0; n--) put(back(rep0));
      }
      if (code === 0) last = { end: input.pos, size: total };
    }
  } catch (error) {
    if (!(error instanceof Broken)) throw error;
  }
  return last;
}

// A small EFI/Tiano compressor for tests, written from the UEFI "Compression Algorithm Specification": greedy
// LZ77 with fixed complete canonical codes, in blocks of at most 65535 symbols. It exercises every table of
// the format (code-length table with its zero-run escape, symbol/length table, position table, extra bits).

class BitWriter {
  private readonly bytes: number[] = [];
  private cur = 0;
  private n = 0;
  put(value: number, bits: number): void {
    for (let i = bits - 1; i >= 0; i--) {
      this.cur = (this.cur << 1) | ((value >>> i) & 1);
      if (++this.n === 8) {
        this.bytes.push(this.cur);
        this.cur = 0;
        this.n = 0;
      }
    }
  }
  finish(): Buffer {
    if (this.n > 0) this.bytes.push(this.cur << (8 - this.n));
    return Buffer.from(this.bytes);
  }
}

/** Lengths of a complete prefix code over n symbols (n >= 2), as flat as possible. */
function flatLengths(n: number): number[] {
  const L = Math.ceil(Math.log2(n));
  const short = 2 ** L - n;
  return Array.from({ length: n }, (_, i) => (i < short ? L - 1 : L));
}

/** Canonical codes: shorter lengths first, then by symbol. */
function canonical(lengths: number[]): number[] {
  const count = new Array(18).fill(0);
  for (const l of lengths) if (l) count[l]++;
  const next = new Array(18).fill(0);
  let code = 0;
  for (let len = 1; len <= 16; len++) {
    next[len] = code;
    code = (code + count[len]) << 1;
  }
  return lengths.map((l) => (l ? next[l]++ : 0));
}

const NC = 510;
const NP = 14;
type Token = { literal: number } | { length: number; distance: number };

function tokenize(data: Buffer): Token[] {
  const tokens: Token[] = [];
  const last = new Map<number, number>();
  for (let i = 0; i < data.length; ) {
    let best = 0;
    let bestFrom = 0;
    if (i + 3 <= data.length) {
      const key = data.readUIntBE(i, 3);
      const from = last.get(key);
      if (from !== undefined && i - from <= 8191) {
        let len = 0;
        while (len < 256 && i + len < data.length && data[from + len] === data[i + len]) len++;
        if (len >= 3) {
          best = len;
          bestFrom = from;
        }
      }
      last.set(key, i);
    }
    if (best) {
      tokens.push({ length: best, distance: i - bestFrom });
      for (let j = i + 1; j < i + best && j + 3 <= data.length; j++) last.set(data.readUIntBE(j, 3), j);
      i += best;
    } else {
      tokens.push({ literal: data[i++]! });
    }
  }
  return tokens;
}

export function tianoCompress(data: Buffer, variant: 'efi' | 'tiano'): Buffer {
  const pBit = variant === 'efi' ? 4 : 5;
  const w = new BitWriter();
  const cLen = flatLengths(NC);
  const cCode = canonical(cLen);
  const pLen = flatLengths(NP);
  const pCode = canonical(pLen);
  // The code-length code: symbols len+2 for the two C lengths used, one bit each.
  const ptSymbols = [...new Set(cLen)].sort((a, b) => a - b).map((l) => l + 2);
  const tokens = tokenize(data);
  for (let at = 0; at < tokens.length; at += 65535) {
    const block = tokens.slice(at, at + 65535);
    w.put(block.length, 16);
    const ptCount = ptSymbols[1]! + 1;
    w.put(ptCount, 5);
    for (let i = 0; i < ptCount; i++) {
      w.put(ptSymbols.includes(i) ? 1 : 0, 3);
      if (i === 2) {
        w.put(3, 2); // the zero run after index 3: indices 3, 4, 5 are zero
        i = 5;
      }
    }
    w.put(NC, 9);
    for (const l of cLen) w.put(ptSymbols.indexOf(l + 2), 1);
    w.put(NP, pBit);
    for (const l of pLen) w.put(l, 3);
    for (const token of block) {
      if ('literal' in token) {
        w.put(cCode[token.literal]!, cLen[token.literal]!);
        continue;
      }
      const c = token.length + 253;
      w.put(cCode[c]!, cLen[c]!);
      const pos = token.distance - 1;
      const val = pos < 2 ? pos : Math.floor(Math.log2(pos)) + 1;
      w.put(pCode[val]!, pLen[val]!);
      if (val > 1) w.put(pos - (1 << (val - 1)), val - 1);
    }
  }
  const body = w.finish();
  const header = Buffer.alloc(8);
  header.writeUInt32LE(body.length, 0);
  header.writeUInt32LE(data.length, 4);
  return Buffer.concat([header, body]);
}

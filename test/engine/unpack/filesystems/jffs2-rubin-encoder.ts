// A rubin encoder for the JFFS2 tests, written from the description of Linux fs/jffs2/compr_rubin.c (mkfs.jffs2 no
// longer writes rubin): an arithmetic coder over the 8 bits of each byte, least significant first, with one fixed
// probability per bit position; the interval's top bit is emitted whenever it is settled, and 16 bits at the end.
const UPPER = 1 << 15;
const LOWER = UPPER - 1;
export const MIPS_DIVIDER = 1043;
export const MIPS_BITS = [277, 249, 290, 267, 229, 341, 212, 241];

export function rubinEncode(data: Buffer, divider: number, bits: readonly number[]): Buffer {
  const out: number[] = [];
  let acc = 0;
  let count = 0;
  const push = (bit: number) => {
    acc = (acc << 1) | bit;
    if (++count === 8) {
      out.push(acc);
      acc = 0;
      count = 0;
    }
  };
  let p = 2 * UPPER;
  let q = 0;
  for (let byte of data) {
    for (let i = 0; i < 8; i++) {
      while (q >= UPPER || p + q <= UPPER) {
        push(q & UPPER ? 1 : 0);
        q = (q & LOWER) << 1;
        p <<= 1;
      }
      const a = divider - bits[i]!;
      let split = Math.floor((a * p) / (a + bits[i]!));
      split = Math.min(Math.max(split, 1), p - 1);
      if ((byte & 1) === 0) p = split;
      else {
        p -= split;
        q += split;
      }
      byte >>= 1;
    }
  }
  for (let i = 0; i < 16; i++) {
    push(q & UPPER ? 1 : 0);
    q = (q & LOWER) << 1;
  }
  if (count > 0) out.push(acc << (8 - count));
  return Buffer.from(out);
}

/** dynrubin: the probability of each bit position being 1, out of 256 (1..255), as an 8-byte table, then the bits. */
export function dynrubinEncode(data: Buffer): Buffer {
  const table = Array.from({ length: 8 }, (_, bit) => {
    let ones = 0;
    for (const byte of data) ones += (byte >> bit) & 1;
    return Math.min(255, Math.max(1, Math.floor((ones * 256) / data.length)));
  });
  return Buffer.concat([Buffer.from(table), rubinEncode(data, 256, table)]);
}

// AES (Rijndael): the S-box, its inverse, and the first encryption/decryption T-tables (Te0/Td0) used by
// table-driven implementations (OpenSSL, mbed TLS, wolfSSL, EDK II). Computed from the field arithmetic
// rather than transcribed, so a typo cannot weaken the signature.
import { byteTable, head, wordTable, type ConstantSignature } from './types.js';

const xtime = (a: number): number => ((a << 1) ^ (a & 0x80 ? 0x1b : 0)) & 0xff;

function mul(a: number, b: number): number {
  let r = 0;
  for (; b; b >>= 1, a = xtime(a)) if (b & 1) r ^= a;
  return r;
}

function sbox(): number[] {
  // inverses from powers of the generator 3 (x^-1 = 3^(255 - log3 x)): a search over every y for each x took ~10 ms
  // of every scan's start
  const exp = new Array<number>(255);
  const log = new Array<number>(256);
  for (let i = 0, p = 1; i < 255; i++, p = mul(p, 3)) [exp[i], log[p]] = [p, i];
  const out: number[] = [];
  for (let x = 0; x < 256; x++) {
    const inv = x === 0 ? 0 : exp[(255 - log[x]!) % 255]!;
    let s = inv;
    for (let i = 1; i < 5; i++) s ^= ((inv << i) | (inv >> (8 - i))) & 0xff;
    out.push(s ^ 0x63);
  }
  return out;
}

export const AES_SBOX = sbox();
export const AES_INV_SBOX = AES_SBOX.reduce<number[]>((inv, s, x) => ((inv[s] = x), inv), []);
const te0 = AES_SBOX.map((s) => ((mul(s, 2) << 24) | (s << 16) | (s << 8) | mul(s, 3)) >>> 0);
const td0 = AES_INV_SBOX.map((s) => ((mul(s, 14) << 24) | (mul(s, 9) << 16) | (mul(s, 13) << 8) | mul(s, 11)) >>> 0);

const base = { family: 'aes', algorithm: 'AES', kind: 'crypto' as const };
export const aes: ConstantSignature[] = [
  byteTable({ ...base, id: 'aes-sbox', what: 'S-box' }, head(AES_SBOX, 32)),
  byteTable({ ...base, id: 'aes-inv-sbox', what: 'inverse S-box' }, head(AES_INV_SBOX, 32)),
  ...wordTable({ ...base, id: 'aes-te0', what: 'encryption T-table' }, head(te0, 8), 4),
  ...wordTable({ ...base, id: 'aes-td0', what: 'decryption T-table' }, head(td0, 8), 4),
  ...wordTable({ ...base, id: 'aes-rcon', what: 'key-schedule round constants' }, [0x01000000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x80000000, 0x1b000000, 0x36000000], 4),
  ...wordTable({ ...base, id: 'aes-rcon-low', what: 'key-schedule round constants' }, [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36], 4),
];

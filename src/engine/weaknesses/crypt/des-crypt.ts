// Traditional DES crypt(3) (Unix V7): the first 8 characters of the password (7 bits each) are the DES key, a
// 12-bit salt swaps pairs of bits of the E expansion, and a zero block is encrypted 25 times. The output is the
// 2-character salt and 11 characters for the 64 bits. Implemented bit by bit from FIPS 46-3 (no dependency:
// node:crypto has no DES with a salted E box, and OpenSSL 3 dropped `passwd -crypt`). Slow but only ever run
// over a short list of default passwords.
import { CRYPT_ALPHABET } from './crypt-base64.js';

const IP = [
  58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4, 62, 54, 46, 38, 30, 22, 14, 6, 64, 56, 48, 40, 32, 24, 16, 8,
  57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3, 61, 53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7,
];
const E = [
  32, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11, 12, 13, 12, 13, 14, 15, 16, 17,
  16, 17, 18, 19, 20, 21, 20, 21, 22, 23, 24, 25, 24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1,
];
const P = [16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10, 2, 8, 24, 14, 32, 27, 3, 9, 19, 13, 30, 6, 22, 11, 4, 25];
const PC1 = [
  57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18, 10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60, 52, 44, 36,
  63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22, 14, 6, 61, 53, 45, 37, 29, 21, 13, 5, 28, 20, 12, 4,
];
const PC2 = [
  14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10, 23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2,
  41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48, 44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32,
];
const SHIFTS = [1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1];
const S = [
  [14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7, 0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8,
    4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0, 15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13],
  [15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10, 3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5,
    0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15, 13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9],
  [10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8, 13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1,
    13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7, 1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12],
  [7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15, 13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9,
    10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4, 3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14],
  [2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9, 14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6,
    4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14, 11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3],
  [12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11, 10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8,
    9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6, 4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13],
  [4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1, 13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6,
    1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2, 6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12],
  [13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7, 1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2,
    7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8, 2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11],
];
// The final permutation is the inverse of IP.
const FP = IP.map((_, i) => IP.indexOf(i + 1) + 1);

const permute = (bits: readonly number[], table: readonly number[]): number[] => table.map((t) => bits[t - 1]!);

function subkeys(key: number[]): number[][] {
  let cd = permute(key, PC1);
  const out: number[][] = [];
  for (const shift of SHIFTS) {
    const c = cd.slice(0, 28);
    const d = cd.slice(28);
    cd = [...c.slice(shift), ...c.slice(0, shift), ...d.slice(shift), ...d.slice(0, shift)];
    out.push(permute(cd, PC2));
  }
  return out;
}

function encrypt(block: number[], keys: number[][], e: readonly number[]): number[] {
  const ip = permute(block, IP);
  let l = ip.slice(0, 32);
  let r = ip.slice(32);
  for (const k of keys) {
    const x = permute(r, e).map((b, i) => b ^ k[i]!);
    const f: number[] = [];
    for (let box = 0; box < 8; box++) {
      const six = x.slice(box * 6, box * 6 + 6);
      const v = S[box]![(six[0]! << 5) | (six[5]! << 4) | (six[1]! << 3) | (six[2]! << 2) | (six[3]! << 1) | six[4]!]!;
      f.push((v >> 3) & 1, (v >> 2) & 1, (v >> 1) & 1, v & 1);
    }
    const next = permute(f, P).map((b, i) => b ^ l[i]!);
    l = r;
    r = next;
  }
  return permute([...r, ...l], FP);
}

/** crypt(3) of `password` with the 2-character `salt` (a 13-character result). */
export function desCrypt(password: string, salt: string): string {
  const saltChars = salt.slice(0, 2).padEnd(2, '.');
  const e = [...E];
  for (let i = 0; i < 2; i++) {
    const value = Math.max(0, CRYPT_ALPHABET.indexOf(saltChars[i]!));
    for (let j = 0; j < 6; j++) {
      if ((value >> j) & 1) [e[6 * i + j], e[6 * i + j + 24]] = [e[6 * i + j + 24]!, e[6 * i + j]!];
    }
  }
  const key = new Array<number>(64).fill(0);
  const pw = Buffer.from(password, 'utf8');
  for (let i = 0; i < 8 && i < pw.length; i++) for (let j = 0; j < 7; j++) key[i * 8 + j] = (pw[i]! >> (6 - j)) & 1;
  const keys = subkeys(key);
  let block = new Array<number>(64).fill(0);
  for (let round = 0; round < 25; round++) block = encrypt(block, keys, e);
  block.push(0, 0);
  let out = saltChars;
  for (let i = 0; i < 11; i++) {
    let c = 0;
    for (let j = 0; j < 6; j++) c = (c << 1) | block[6 * i + j]!;
    out += CRYPT_ALPHABET[c];
  }
  return out;
}

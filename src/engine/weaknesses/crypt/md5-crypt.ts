// MD5-crypt ('$1$', and Apache's '$apr1$' variant): Poul-Henning Kamp's FreeBSD algorithm, 1000 MD5 rounds over
// the password and a salt of at most 8 characters.
import { createHash } from 'node:crypto';
import { encodeDigest } from './crypt-base64.js';
import { cryptRounds } from './crypt-rounds.js';

const ORDER = [[0, 6, 12], [1, 7, 13], [2, 8, 14], [3, 9, 15], [4, 10, 5], [11]] as const;
const md5 = (...parts: Buffer[]): Buffer => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** The full hash of `password` under `magic` ('$1$' or '$apr1$') and `salt`. */
export function md5Crypt(password: string, salt: string, magic = '$1$'): string {
  const pw = Buffer.from(password, 'utf8');
  const s = Buffer.from(salt.split('$')[0]!.slice(0, 8), 'utf8');
  const alternate = md5(pw, s, pw);
  const ctx = createHash('md5').update(pw).update(magic).update(s);
  for (let left = pw.length; left > 0; left -= 16) ctx.update(alternate.subarray(0, Math.min(16, left)));
  for (let i = pw.length; i; i >>= 1) ctx.update(i & 1 ? Buffer.from([0]) : pw.subarray(0, 1));
  const final = cryptRounds('md5', ctx.digest(), pw, s, 1000);
  return `${magic}${s.toString('utf8')}$${encodeDigest(final, ORDER)}`;
}

// SHA-256-crypt ('$5$') and SHA-512-crypt ('$6$') per Ulrich Drepper's published specification
// ("Unix crypt using SHA-256 and SHA-512", https://www.akkadia.org/drepper/SHA-crypt.txt), with node:crypto.
import { createHash } from 'node:crypto';
import { encodeDigest } from './crypt-base64.js';
import { cryptRounds } from './crypt-rounds.js';

const ORDER_256 = [
  [0, 10, 20], [21, 1, 11], [12, 22, 2], [3, 13, 23], [24, 4, 14], [15, 25, 5], [6, 16, 26], [27, 7, 17], [18, 28, 8], [9, 19, 29], [31, 30],
] as const;
const ORDER_512 = [
  [0, 21, 42], [22, 43, 1], [44, 2, 23], [3, 24, 45], [25, 46, 4], [47, 5, 26], [6, 27, 48], [28, 49, 7], [50, 8, 29], [9, 30, 51], [31, 52, 10],
  [53, 11, 32], [12, 33, 54], [34, 55, 13], [56, 14, 35], [15, 36, 57], [37, 58, 16], [59, 17, 38], [18, 39, 60], [40, 61, 19], [62, 20, 41], [63],
] as const;

export const SHA_CRYPT_DEFAULT_ROUNDS = 5000;

export interface ShaCryptSetting {
  variant: '5' | '6';
  salt: string;
  /** Present when the hash names its rounds ('rounds=N$'). */
  rounds?: number;
}

/** Splits '$5$[rounds=N$]salt[$hash]' into its setting; undefined when it is not SHA-crypt. */
export function parseShaCrypt(hash: string): ShaCryptSetting | undefined {
  const m = /^\$([56])\$(?:rounds=(\d{1,10})\$)?([^$]{0,16})/.exec(hash);
  if (!m) return undefined;
  const rounds = m[2] === undefined ? undefined : Math.min(999_999_999, Math.max(1000, Number(m[2])));
  return { variant: m[1] as '5' | '6', salt: m[3]!, rounds };
}

function repeatTo(block: Buffer, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i += block.length) block.copy(out, i, 0, Math.min(block.length, length - i));
  return out;
}

/** The full hash of `password` under `setting`. */
export function shaCrypt(password: string, setting: ShaCryptSetting): string {
  const algorithm = setting.variant === '5' ? 'sha256' : 'sha512';
  const hash = (...parts: Buffer[]): Buffer => {
    const h = createHash(algorithm);
    for (const p of parts) h.update(p);
    return h.digest();
  };
  const rounds = setting.rounds ?? SHA_CRYPT_DEFAULT_ROUNDS;
  const pw = Buffer.from(password, 'utf8');
  const salt = Buffer.from(setting.salt, 'utf8');
  const b = hash(pw, salt, pw);
  const a = createHash(algorithm).update(pw).update(salt).update(repeatTo(b, pw.length));
  for (let n = pw.length; n > 0; n >>= 1) a.update(n & 1 ? b : pw);
  let c: Buffer = a.digest();
  const dp = createHash(algorithm);
  for (let i = 0; i < pw.length; i++) dp.update(pw);
  const p = repeatTo(dp.digest(), pw.length);
  const ds = createHash(algorithm);
  for (let i = 0; i < 16 + c[0]!; i++) ds.update(salt);
  const s = repeatTo(ds.digest(), salt.length);
  c = cryptRounds(algorithm, c, p, s, rounds);
  const prefix = `$${setting.variant}$${setting.rounds !== undefined ? `rounds=${rounds}$` : ''}${setting.salt}$`;
  return prefix + encodeDigest(c, setting.variant === '5' ? ORDER_256 : ORDER_512);
}

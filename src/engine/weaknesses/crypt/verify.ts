// Checks a crypt(3) hash against candidate passwords: DES, MD5-crypt ($1$, $apr1$), SHA-256/512-crypt ($5$, $6$)
// and bcrypt ($2a$, $2b$, $2y$). Costly settings are not checked (a hostile image could name a billion rounds):
// SHA-crypt above MAX_SHA_ROUNDS and bcrypt above MAX_BCRYPT_COST are reported as unchecked with the reason.
import { bcryptRaw } from './bcrypt.js';
import { BCRYPT_ALPHABET, CRYPT_ALPHABET, bcryptDecode, bcryptEncode } from './crypt-base64.js';
import { desCrypt } from './des-crypt.js';
import { md5Crypt } from './md5-crypt.js';
import { parseShaCrypt, shaCrypt } from './sha-crypt.js';

export const MAX_SHA_ROUNDS = 50_000;
export const MAX_BCRYPT_COST = 8;

export type HashCheck =
  | { result: 'match'; password: string; scheme: string }
  | { result: 'no-match'; scheme: string }
  | { result: 'unchecked'; scheme: string; reason: string };

const DES = new RegExp(`^[${escape(CRYPT_ALPHABET)}]{13}$`);
const BCRYPT = new RegExp(`^\\$2[aby]\\$(\\d\\d)\\$([${escape(BCRYPT_ALPHABET)}]{53})$`);

function escape(alphabet: string): string {
  return alphabet.replace(/[.\\\]^-]/g, '\\$&');
}

/** Which scheme a hash uses, or undefined when it is not a crypt(3) hash this module knows. */
export function hashScheme(hash: string): string | undefined {
  if (DES.test(hash)) return 'DES crypt';
  if (hash.startsWith('$1$')) return 'MD5-crypt';
  if (hash.startsWith('$apr1$')) return 'Apache MD5-crypt';
  if (hash.startsWith('$5$')) return 'SHA-256-crypt';
  if (hash.startsWith('$6$')) return 'SHA-512-crypt';
  if (BCRYPT.test(hash)) return 'bcrypt';
  return undefined;
}

/** Compares `hash` with each candidate (in order); undefined when the scheme is unknown. */
export function checkHash(hash: string, candidates: readonly string[]): HashCheck | undefined {
  const scheme = hashScheme(hash);
  if (!scheme) return undefined;
  let compute: (password: string) => string;
  if (scheme === 'DES crypt') compute = (p) => desCrypt(p, hash.slice(0, 2));
  else if (scheme === 'MD5-crypt') compute = (p) => md5Crypt(p, hash.slice(3), '$1$');
  else if (scheme === 'Apache MD5-crypt') compute = (p) => md5Crypt(p, hash.slice(6), '$apr1$');
  else if (scheme === 'bcrypt') {
    const [, cost, rest] = BCRYPT.exec(hash)!;
    if (Number(cost) > MAX_BCRYPT_COST) return { result: 'unchecked', scheme, reason: `bcrypt cost ${Number(cost)} is above ${MAX_BCRYPT_COST}, too costly to check` };
    const salt = bcryptDecode(rest!.slice(0, 22), 16);
    if (!salt || Number(cost) < 4) return { result: 'unchecked', scheme, reason: 'malformed bcrypt setting' };
    compute = (p) => hash.slice(0, 29) + bcryptEncode(bcryptRaw(p, salt, Number(cost)));
  } else {
    const setting = parseShaCrypt(hash)!;
    if ((setting.rounds ?? 0) > MAX_SHA_ROUNDS) return { result: 'unchecked', scheme, reason: `rounds=${setting.rounds} is above ${MAX_SHA_ROUNDS}, too costly to check` };
    compute = (p) => shaCrypt(p, setting);
  }
  for (const password of candidates) if (compute(password) === hash) return { result: 'match', password, scheme };
  return { result: 'no-match', scheme };
}

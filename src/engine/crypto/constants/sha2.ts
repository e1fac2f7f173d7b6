// SHA-2: round constants and initial hash values, derived from the fractional parts of the cube and square
// roots of the first primes (FIPS 180-4 §4.2.2, §5.3), computed exactly with integer roots.
import { head, wordTable, type ConstantSignature } from './types.js';

// (the primes found with numbers, the roots started from a floating-point estimate: 1.3 ms of every engine start,
// against 4-5 ms in BigInt arithmetic throughout, 2026-12-02)
const primes = ((): bigint[] => {
  const out: number[] = [];
  for (let n = 2; out.length < 80; n++) if (out.every((p) => n % p !== 0)) out.push(n);
  return out.map(BigInt);
})();

/** The integer k-th root of `value`: Newton's iteration from above, started just above the floating-point root. */
function iroot(value: bigint, k: bigint): bigint {
  let x = BigInt(Math.ceil(Number(value) ** (1 / Number(k)) * (1 + 1e-9))) + 1n;
  for (;;) {
    const y = ((k - 1n) * x + value / x ** (k - 1n)) / k;
    if (y >= x) return x;
    x = y;
  }
}

/** First `bits` bits of the fractional part of the k-th root of p. */
const frac = (p: bigint, k: bigint, bits: number): bigint => iroot(p << (BigInt(bits) * k), k) & ((1n << BigInt(bits)) - 1n);

export const SHA256_K = primes.slice(0, 64).map((p) => Number(frac(p, 3n, 32)));
export const SHA512_K = primes.map((p) => frac(p, 3n, 64));
const sha256Iv = primes.slice(0, 8).map((p) => Number(frac(p, 2n, 32)));
const sha224Iv = primes.slice(8, 16).map((p) => Number(frac(p, 2n, 64) & 0xffffffffn));
const sha512Iv = primes.slice(0, 8).map((p) => frac(p, 2n, 64));
const sha384Iv = primes.slice(8, 16).map((p) => frac(p, 2n, 64));

const sig = (algorithm: string) => ({ family: 'sha2', algorithm, kind: 'crypto' as const });
export const sha2: ConstantSignature[] = [
  ...wordTable({ ...sig('SHA-256'), id: 'sha256-k', what: 'round constants K[0..7]' }, head(SHA256_K, 8), 4),
  ...wordTable({ ...sig('SHA-256'), id: 'sha256-iv', what: 'initial hash value (also BLAKE2s)' }, sha256Iv, 4),
  ...wordTable({ ...sig('SHA-224'), id: 'sha224-iv', what: 'initial hash value' }, sha224Iv, 4),
  ...wordTable({ ...sig('SHA-512'), id: 'sha512-k', what: 'round constants K[0..3]' }, head(SHA512_K, 4), 8),
  ...wordTable({ ...sig('SHA-512'), id: 'sha512-iv', what: 'initial hash value (also BLAKE2b)' }, sha512Iv, 8),
  ...wordTable({ ...sig('SHA-384'), id: 'sha384-iv', what: 'initial hash value' }, sha384Iv, 8),
];

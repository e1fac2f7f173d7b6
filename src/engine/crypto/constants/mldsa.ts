// ML-DSA (FIPS 204, Dilithium): the NTT twiddle factors zeta^brv8(i) mod q for q = 8380417, zeta = 1753, plain
// (FIPS 204 Appendix B) and in the Montgomery form of the Dilithium reference code (centred, entry 0 unused).
import { head, wordTable, type ConstantSignature } from './types.js';

// In numbers, exact: q < 2^23, so every product stays below 2^46 (1.3-1.7 ms of every engine start against 2.8-6.3 ms in
// BigInt arithmetic, 2026-12-02).
const Q = 8380417;
const brv8 = (i: number): number => parseInt(i.toString(2).padStart(8, '0').split('').reverse().join(''), 2);
const pow = (b: number, e: number): number => {
  let r = 1;
  for (; e; e >>>= 1, b = (b * b) % Q) if (e & 1) r = (r * b) % Q;
  return r;
};
const MONT = 2 ** 32 % Q;

export const MLDSA_ZETAS = Array.from({ length: 256 }, (_, i) => pow(1753, brv8(i)));
export const MLDSA_ZETAS_MONT = MLDSA_ZETAS.map((z, i) => {
  if (i === 0) return 0;
  const m = (z * MONT) % Q;
  return m > (Q - 1) / 2 ? m - Q : m;
});

const base = { family: 'mldsa', algorithm: 'ML-DSA', kind: 'crypto' as const };
export const mldsa: ConstantSignature[] = [
  ...wordTable({ ...base, id: 'mldsa-zetas', what: 'NTT zetas (FIPS 204)' }, MLDSA_ZETAS.slice(1, 9), 4),
  ...wordTable({ ...base, id: 'mldsa-zetas-mont', what: 'NTT zetas, Montgomery (Dilithium reference)' }, head(MLDSA_ZETAS_MONT, 9), 4),
];

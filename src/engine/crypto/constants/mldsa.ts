// ML-DSA (FIPS 204, Dilithium): the NTT twiddle factors zeta^brv8(i) mod q for q = 8380417, zeta = 1753, plain
// (FIPS 204 Appendix B) and in the Montgomery form of the Dilithium reference code (centred, entry 0 unused).
import { head, wordTable, type ConstantSignature } from './types.js';

const Q = 8380417n;
const brv8 = (i: number): bigint => BigInt(parseInt(i.toString(2).padStart(8, '0').split('').reverse().join(''), 2));
const pow = (b: bigint, e: bigint): bigint => {
  let r = 1n;
  for (; e; e >>= 1n, b = (b * b) % Q) if (e & 1n) r = (r * b) % Q;
  return r;
};
const MONT = (1n << 32n) % Q;

export const MLDSA_ZETAS = Array.from({ length: 256 }, (_, i) => pow(1753n, brv8(i)));
export const MLDSA_ZETAS_MONT = MLDSA_ZETAS.map((z, i) => {
  if (i === 0) return 0;
  const m = (z * MONT) % Q;
  return Number(m > Q / 2n ? m - Q : m);
});

const base = { family: 'mldsa', algorithm: 'ML-DSA', kind: 'crypto' as const };
export const mldsa: ConstantSignature[] = [
  ...wordTable({ ...base, id: 'mldsa-zetas', what: 'NTT zetas (FIPS 204)' }, MLDSA_ZETAS.slice(1, 9).map(Number), 4),
  ...wordTable({ ...base, id: 'mldsa-zetas-mont', what: 'NTT zetas, Montgomery (Dilithium reference)' }, head(MLDSA_ZETAS_MONT, 9), 4),
];

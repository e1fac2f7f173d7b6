// ML-KEM (FIPS 203, Kyber): the NTT twiddle factors zeta^brv7(i) mod q for q = 3329, zeta = 17, in the three
// layouts implementations use: plain (FIPS 203 Appendix A), Montgomery form centred (Kyber reference, round 3),
// and Montgomery form unsigned (round 2). Computed, not transcribed.
import { head, wordTable, type ConstantSignature } from './types.js';

const Q = 3329;
const brv7 = (i: number): number => parseInt(i.toString(2).padStart(7, '0').split('').reverse().join(''), 2);
const pow = (b: number, e: number): number => {
  let r = 1;
  for (; e; e >>= 1, b = (b * b) % Q) if (e & 1) r = (r * b) % Q;
  return r;
};
const MONT = 2285; // 2^16 mod q

export const MLKEM_ZETAS = Array.from({ length: 128 }, (_, i) => pow(17, brv7(i)));
const montgomery = MLKEM_ZETAS.map((z) => (z * MONT) % Q);
const centred = montgomery.map((z) => (z > Q / 2 ? z - Q : z));

const base = { family: 'mlkem', algorithm: 'ML-KEM', kind: 'crypto' as const };
export const mlkem: ConstantSignature[] = [
  ...wordTable({ ...base, id: 'mlkem-zetas', what: 'NTT zetas (FIPS 203)' }, head(MLKEM_ZETAS, 12), 2),
  ...wordTable({ ...base, id: 'mlkem-zetas-mont', what: 'NTT zetas, Montgomery (Kyber reference)' }, head(centred, 12), 2),
  ...wordTable({ ...base, id: 'mlkem-zetas-mont-u', what: 'NTT zetas, Montgomery unsigned (Kyber round 2)' }, head(montgomery, 12), 2),
];

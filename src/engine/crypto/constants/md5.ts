// MD5: the 64 sine-derived additive constants T[i] = floor(|sin(i + 1)| * 2^32), as a table. Implementations
// that inline them as immediates (most x86 builds) leave no table; they are found by library symbols instead.
import { head, wordTable, type ConstantSignature } from './types.js';

export const MD5_T = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) >>> 0);

export const md5: ConstantSignature[] = [
  ...wordTable({ id: 'md5-t', family: 'md5', algorithm: 'MD5', what: 'sine constants T[0..7]', kind: 'crypto' }, head(MD5_T, 8), 4),
  ...wordTable({ id: 'md5-t-tail', family: 'md5', algorithm: 'MD5', what: 'sine constants T[56..63]', kind: 'crypto' }, MD5_T.slice(56), 4),
];

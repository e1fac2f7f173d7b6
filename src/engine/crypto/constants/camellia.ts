// Camellia (RFC 3713): the key-schedule constants Sigma1..Sigma6 and the first substitution box SBOX1.
import { byteTable, wordTable, type ConstantSignature } from './types.js';

const sigma = [0xa09e667f, 0x3bcc908b, 0xb67ae858, 0x4caa73b2, 0xc6ef372f, 0xe94f82be, 0x54ff53a5, 0xf1d36f1c];
const sbox1 = [112, 130, 44, 236, 179, 39, 192, 229, 228, 133, 87, 53, 234, 12, 174, 65, 35, 239, 107, 147, 69, 25, 165, 33];

const base = { family: 'camellia', algorithm: 'Camellia', kind: 'crypto' as const };
export const camellia: ConstantSignature[] = [
  ...wordTable({ ...base, id: 'camellia-sigma', what: 'key-schedule constants Sigma1..4' }, sigma, 4),
  // Assembly implementations store each 64-bit Sigma as a little-endian quadword.
  ...wordTable({ ...base, id: 'camellia-sigma-q', what: 'key-schedule constants Sigma1..4' }, [0xa09e667f3bcc908bn, 0xb67ae8584caa73b2n, 0xc6ef372fe94f82ben, 0x54ff53a5f1d36f1cn], 8),
  byteTable({ ...base, id: 'camellia-sbox1', what: 'SBOX1' }, sbox1),
];

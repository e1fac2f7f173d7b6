// Blowfish: the P-array and the first S-box initialised with the hexadecimal digits of pi.
import { wordTable, type ConstantSignature } from './types.js';

const pArray = [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0x082efa98, 0xec4e6c89];
const s0 = [0xd1310ba6, 0x98dfb5ac, 0x2ffd72db, 0xd01adfb7, 0xb8e1afed, 0x6a267e96, 0xba7c9045, 0xf12c7f99];

const base = { family: 'blowfish', algorithm: 'Blowfish', kind: 'crypto' as const };
export const blowfish: ConstantSignature[] = [
  ...wordTable({ ...base, id: 'blowfish-p', what: 'P-array (pi digits)' }, pArray, 4),
  ...wordTable({ ...base, id: 'blowfish-s0', what: 'S-box 0 (pi digits)' }, s0, 4),
];

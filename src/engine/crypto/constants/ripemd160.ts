// RIPEMD-160: the message-word selection tables of the left (from round 2) and right lines and the rotation
// amounts, as byte or word tables (RIPEMD's initial value equals SHA-1's and is listed there).
import { byteTable, wordTable, type ConstantSignature } from './types.js';

const rLeft2 = [7, 4, 13, 1, 10, 6, 15, 3, 12, 0, 9, 5, 2, 14, 11, 8];
const rRight = [5, 14, 7, 0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12];
const sLeft = [11, 14, 15, 12, 5, 8, 7, 9, 11, 13, 14, 15, 6, 7, 9, 8];

const base = { family: 'ripemd160', algorithm: 'RIPEMD-160', kind: 'crypto' as const };
export const ripemd160: ConstantSignature[] = [
  byteTable({ ...base, id: 'ripemd160-r-right', what: 'right-line word selection' }, rRight),
  byteTable({ ...base, id: 'ripemd160-r-left', what: 'left-line word selection (round 2)' }, rLeft2),
  byteTable({ ...base, id: 'ripemd160-s-left', what: 'left-line rotation amounts' }, sLeft),
  ...wordTable({ ...base, id: 'ripemd160-r-right-w', what: 'right-line word selection' }, rRight, 4),
  ...wordTable({ ...base, id: 'ripemd160-k-right', what: 'right-line constants' }, [0x50a28be6, 0x5c4dd124, 0x6d703ef3, 0x7a6d76e9], 4),
];

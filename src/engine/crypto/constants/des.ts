// DES and Triple DES: the raw S-boxes and permutation tables of FIPS 46-3 (byte tables), and the combined
// SP-transformation table of table-driven implementations (OpenSSL/SSLeay `DES_SPtrans`, used by libdes forks).
// 3DES is DES applied three times: its constants are DES's, so the detection reports DES (and the library
// detectors name 3DES where its functions are present).
import { byteTable, wordTable, type ConstantSignature } from './types.js';

const s1 = [14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7, 0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8];
const s2 = [15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10, 3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5];
const ip = [58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4, 62, 54, 46, 38, 30, 22, 14, 6];
const pc1 = [57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18, 10, 2, 59, 51, 43, 35, 27, 19, 11, 3];
const expansion = [32, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11, 12, 13, 12, 13, 14, 15, 16, 17];
const p = [16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10, 2, 8, 24, 14, 32, 27, 3, 9];
const spTrans0 = [0x02080800, 0x00080000, 0x02000002, 0x02080802, 0x02000000, 0x00080802, 0x00080002, 0x02000002];

const base = { family: 'des', algorithm: 'DES', kind: 'crypto' as const };
export const des: ConstantSignature[] = [
  byteTable({ ...base, id: 'des-s1', what: 'S-box S1' }, s1),
  byteTable({ ...base, id: 'des-s2', what: 'S-box S2' }, s2),
  byteTable({ ...base, id: 'des-ip', what: 'initial permutation' }, ip),
  byteTable({ ...base, id: 'des-pc1', what: 'permuted choice 1' }, pc1),
  byteTable({ ...base, id: 'des-e', what: 'expansion table' }, expansion),
  byteTable({ ...base, id: 'des-p', what: 'P permutation' }, p),
  ...wordTable({ ...base, id: 'des-s1-w', what: 'S-box S1' }, s1, 4),
  ...wordTable({ ...base, id: 'des-sptrans', what: 'combined SP table' }, spTrans0, 4),
];

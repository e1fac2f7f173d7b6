// SHA-1: the initial hash value (shared with RIPEMD-160, hence attributed to SHA-1 with that caveat in `what`)
// and the four round constants laid out as a table.
import { wordTable, type ConstantSignature } from './types.js';

const base = { family: 'sha1', algorithm: 'SHA-1', kind: 'crypto' as const };
export const sha1: ConstantSignature[] = [
  ...wordTable({ ...base, id: 'sha1-iv', what: 'initial hash value (also RIPEMD-160)' }, [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0], 4),
  ...wordTable({ ...base, id: 'sha1-k', what: 'round constants' }, [0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6], 4),
];

// Every constant signature, by family. Adding a family is one file plus one line here.
import { aes } from './aes.js';
import { blowfish } from './blowfish.js';
import { camellia } from './camellia.js';
import { chachaSalsa, poly1305 } from './chacha.js';
import { crc } from './crc.js';
import { curves } from './curves.js';
import { des } from './des.js';
import { dh } from './dh.js';
import { md5 } from './md5.js';
import { mldsa } from './mldsa.js';
import { mlkem } from './mlkem.js';
import { pqcNames } from './pqc-names.js';
import { rc4 } from './rc4.js';
import { ripemd160 } from './ripemd160.js';
import { sha1 } from './sha1.js';
import { sha2 } from './sha2.js';
import { sha3 } from './sha3.js';
import { twofish } from './twofish.js';
import type { ConstantSignature } from './types.js';

export type { ConstantSignature } from './types.js';

export const constantSignatures: ConstantSignature[] = [
  ...aes,
  ...des,
  ...blowfish,
  ...twofish,
  ...camellia,
  ...chachaSalsa,
  ...poly1305,
  ...md5,
  ...sha1,
  ...sha2,
  ...sha3,
  ...ripemd160,
  ...crc,
  ...rc4,
  ...curves,
  ...dh,
  ...mlkem,
  ...mldsa,
  ...pqcNames,
];

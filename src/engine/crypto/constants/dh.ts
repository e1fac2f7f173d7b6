// Finite-field Diffie-Hellman groups: the well-known primes of RFC 2409/3526 (MODP, Oakley groups 1, 2, 5,
// 14-18) and RFC 7919 (ffdhe). All MODP primes share their leading digits of pi; each group's size shows in its
// last words, so a tail match names the key size. The MODP tails below are the last 24 bytes of node:crypto's
// built-in groups (OpenSSL's copies); test/engine/crypto/constants.test.ts checks each against getDiffieHellman()
// (asking node:crypto at every start cost 60 ms of each scan). The ffdhe prefix is 2^64-1 followed by e's digits.
import { bigNumber, type ConstantSignature } from './types.js';

const base = { family: 'dh', algorithm: 'DH', kind: 'crypto' as const };

/** Each MODP group: where it is defined (groups 1 and 2 in RFC 2409, 5 and 14-18 in RFC 3526), its size, its prime's last 24 bytes. */
export const MODP_GROUPS: ReadonlyArray<{ group: string; rfc: string; bits: number; tail: string }> = [
  { group: 'modp1', rfc: 'RFC 2409', bits: 768, tail: 'e485b576625e7ec6f44c42e9a63a3620ffffffffffffffff' },
  { group: 'modp2', rfc: 'RFC 2409', bits: 1024, tail: 'ae9f24117c4b1fe649286651ece65381ffffffffffffffff' },
  { group: 'modp5', rfc: 'RFC 3526', bits: 1536, tail: '670c354e4abc9804f1746c08ca237327ffffffffffffffff' },
  { group: 'modp14', rfc: 'RFC 3526', bits: 2048, tail: '15d2261898fa051015728e5a8aacaa68ffffffffffffffff' },
  { group: 'modp15', rfc: 'RFC 3526', bits: 3072, tail: '43db5bfce0fd108e4b82d120a93ad2caffffffffffffffff' },
  { group: 'modp16', rfc: 'RFC 3526', bits: 4096, tail: '86ffb7dc90a6c08f4df435c934063199ffffffffffffffff' },
  { group: 'modp17', rfc: 'RFC 3526', bits: 6144, tail: '12bf2d5b0b7474d6e694f91e6dcc4024ffffffffffffffff' },
  { group: 'modp18', rfc: 'RFC 3526', bits: 8192, tail: 'c81f56e880b96e7160c980dd98edd3dfffffffffffffffff' },
];

function modpTails(): ConstantSignature[] {
  return MODP_GROUPS.flatMap(({ group, rfc, bits, tail }) =>
    bigNumber({ ...base, id: `dh-${group}-tail`, what: `${rfc} MODP group ${group.slice(4)} (${bits}-bit) prime`, parameter: String(bits) }, tail));
}

export const dh: ConstantSignature[] = [
  ...bigNumber({ ...base, id: 'dh-modp-prefix', what: 'RFC 2409/3526 MODP group prime' }, 'ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd1'),
  ...bigNumber({ ...base, id: 'dh-ffdhe-prefix', what: 'RFC 7919 ffdhe group prime' }, 'ffffffffffffffffadf85458a2bb4a9a'),
  ...modpTails(),
];

// Finite-field Diffie-Hellman groups: the well-known primes of RFC 2409/3526 (MODP, Oakley groups 1, 2, 5,
// 14-18) and RFC 7919 (ffdhe). All MODP primes share their leading digits of pi; each group's size shows in its
// last words, so a tail match names the key size. The MODP primes are taken from node:crypto's built-in
// groups (OpenSSL's copies), not transcribed; the ffdhe prefix is 2^64-1 followed by the digits of e.
import { getDiffieHellman } from 'node:crypto';
import { bigNumber, type ConstantSignature } from './types.js';

const base = { family: 'dh', algorithm: 'DH', kind: 'crypto' as const };

function modpTails(): ConstantSignature[] {
  const out: ConstantSignature[] = [];
  for (const group of ['modp1', 'modp2', 'modp5', 'modp14', 'modp15', 'modp16', 'modp17', 'modp18']) {
    try {
      const prime = getDiffieHellman(group).getPrime('hex');
      const bits = String(prime.length * 4);
      out.push(...bigNumber({ ...base, id: `dh-${group}-tail`, what: `RFC 3526 MODP ${bits}-bit group prime`, parameter: bits }, prime.slice(-48)));
    } catch {
      // A runtime without this group: its tail is simply not searched.
    }
  }
  return out;
}

export const dh: ConstantSignature[] = [
  ...bigNumber({ ...base, id: 'dh-modp-prefix', what: 'RFC 2409/3526 MODP group prime' }, 'ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd1'),
  ...bigNumber({ ...base, id: 'dh-ffdhe-prefix', what: 'RFC 7919 ffdhe group prime' }, 'ffffffffffffffffadf85458a2bb4a9a'),
  ...modpTails(),
];

// Finite-field Diffie-Hellman groups: the well-known primes of RFC 2409/3526 (MODP, Oakley groups 1, 2, 5,
// 14-18) and RFC 7919 (ffdhe). All MODP primes share their leading digits of pi; each group's size shows in its
// last words, so a tail match names the key size. The MODP primes are taken from node:crypto's built-in
// groups (OpenSSL's copies), not transcribed; the ffdhe prefix is 2^64-1 followed by the digits of e.
import { getDiffieHellman } from 'node:crypto';
import { bigNumber, type ConstantSignature } from './types.js';

const base = { family: 'dh', algorithm: 'DH', kind: 'crypto' as const };

/** Where each MODP group is defined: groups 1 (768-bit) and 2 (1024-bit) in RFC 2409, 5 and 14-18 in RFC 3526. */
const MODP_RFC: Record<string, string> = { modp1: 'RFC 2409', modp2: 'RFC 2409', modp5: 'RFC 3526', modp14: 'RFC 3526', modp15: 'RFC 3526', modp16: 'RFC 3526', modp17: 'RFC 3526', modp18: 'RFC 3526' };

function modpTails(): ConstantSignature[] {
  const out: ConstantSignature[] = [];
  for (const [group, rfc] of Object.entries(MODP_RFC)) {
    try {
      const prime = getDiffieHellman(group).getPrime('hex');
      const bits = String(prime.length * 4);
      out.push(...bigNumber({ ...base, id: `dh-${group}-tail`, what: `${rfc} MODP group ${group.slice(4)} (${bits}-bit) prime`, parameter: bits }, prime.slice(-48)));
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

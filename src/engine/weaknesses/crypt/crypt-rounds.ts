// The rounds that MD5-crypt (1,000) and SHA-crypt (5,000 by default) share: round i hashes the previous digest and
// the password-derived bytes p in an order set by i's parity, with the salt-derived bytes s when i is not a
// multiple of 3 and p again when it is not a multiple of 7. The loop runs in WebAssembly (wasm/crypt.ts: per hash
// at the default rounds, SHA-512-crypt 4.6 ms, SHA-256-crypt 3.4 ms, MD5-crypt 0.4 ms, 2026-12-01); each account's
// hash is tried against ~40 default passwords (default-passwords.ts). Inputs it cannot hold (a password of more
// than 1 KiB) go through node:crypto, each round's input laid out in one buffer and hashed with one crypto.hash()
// call (SHA-512-crypt 20.3 ms, where a Hash object and four updates a round took 27.4 ms).
import { hash as digestOf } from 'node:crypto';
import { wasmCryptRounds } from '../../wasm/crypt.js';

/** The digest after `rounds` rounds from `digest` (Node's name of the hash: md5, sha256 or sha512). */
export function cryptRounds(algorithm: string, digest: Buffer, p: Buffer, s: Buffer, rounds: number): Buffer {
  return wasmCryptRounds(algorithm, digest, p, s, rounds) ?? cryptRoundsWithNodeHashes(algorithm, digest, p, s, rounds);
}

/** cryptRounds through node:crypto (any input; tests compare the two). */
export function cryptRoundsWithNodeHashes(algorithm: string, digest: Buffer, p: Buffer, s: Buffer, rounds: number): Buffer {
  const input = Buffer.allocUnsafe(2 * Math.max(digest.length, p.length) + p.length + s.length);
  let c = digest;
  for (let i = 0; i < rounds; i++) {
    const first = i & 1 ? p : c;
    input.set(first, 0);
    let n = first.length;
    if (i % 3) {
      input.set(s, n);
      n += s.length;
    }
    if (i % 7) {
      input.set(p, n);
      n += p.length;
    }
    const last = i & 1 ? c : p;
    input.set(last, n);
    n += last.length;
    c = digestOf(algorithm, input.subarray(0, n), 'buffer') as Buffer;
  }
  return c;
}

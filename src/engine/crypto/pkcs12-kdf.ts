// The PKCS#12 key derivation (RFC 7292, appendix B.2) with Node's native hashes. node-forge derives these keys in
// JavaScript: its SHA-1 took 16-25 ms per key (2,048 iterations, the usual count), and opening a container derives
// one key per password tried (its MAC key) and two per encrypted bag (key and IV): ~55 ms for the corpus's
// pkcs12.p12 (CPU profile, 2026-11-30), and ten MAC keys for a container none of the common passwords opens. Same
// bytes as forge's pki.pbe.generatePkcs12Key (test/engine/crypto/pkcs12-kdf.test.ts compares them). The iterations
// hash with crypto.hash() rather than a Hash object each: 2,048 SHA-1 rounds 4.4 -> 2.0-2.4 ms (2026-11-30).
import { createHash, hash as digestOf } from 'node:crypto';

/** Block size in bytes (the "v" of B.2) of the hashes forge can pass, by Node's name for them. */
const BLOCK_BYTES: Record<string, number> = { md5: 64, sha1: 64, sha256: 64, sha384: 128, sha512: 128 };

/** Whether pkcs12Key can derive with this hash (Node's name). */
export function pkcs12KdfHash(name: string): boolean {
  return name in BLOCK_BYTES;
}

/**
 * `length` bytes of key material for `id` (1 key, 2 IV, 3 MAC key) from a password, as RFC 7292 B.2 derives them.
 * The password is the BMPString of its UTF-16 code units with two zero bytes after it; undefined (no password)
 * is empty, without them.
 */
export function pkcs12Key(password: string | undefined, salt: Buffer, id: number, iterations: number, length: number, hash: string): Buffer {
  if (!(iterations >= 1)) throw new Error('PKCS#12 key derivation iteration count must be >= 1.');
  const v = BLOCK_BYTES[hash];
  if (v === undefined) throw new Error(`no PKCS#12 key derivation with ${hash}`);
  const pass = password === undefined ? Buffer.alloc(0) : Buffer.from(`${password}\0`, 'utf16le').swap16();
  // I = S || P: the salt and the password each repeated to a whole number of v-byte blocks
  const repeat = (bytes: Buffer) => {
    const out = Buffer.alloc(v * Math.ceil(bytes.length / v));
    for (let at = 0; at < out.length; at += bytes.length) bytes.copy(out, at, 0, Math.min(bytes.length, out.length - at));
    return out;
  };
  const input = Buffer.concat([repeat(salt), repeat(pass)]);
  const diversifier = Buffer.alloc(v, id);
  const blocks: Buffer[] = [];
  let derived = 0;
  while (derived < length) {
    let a = createHash(hash).update(diversifier).update(input).digest();
    for (let round = 1; round < iterations; round++) a = digestOf(hash, a, 'buffer');
    blocks.push(a);
    derived += a.length;
    if (derived >= length) break;
    // each v-byte block of I becomes (I_j + B + 1) mod 2^(8v), B being A repeated to v bytes
    for (let j = 0; j < input.length; j += v) {
      let carry = 1;
      for (let l = v - 1; l >= 0; l--) {
        carry += input[j + l]! + a[l % a.length]!;
        input[j + l] = carry & 0xff;
        carry >>>= 8;
      }
    }
  }
  return Buffer.concat(blocks).subarray(0, length);
}

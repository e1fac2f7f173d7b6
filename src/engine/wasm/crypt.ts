// MD5-crypt's and SHA-crypt's rounds in WebAssembly (crypt.c, built by scripts/build-wasm.mjs): the whole loop in
// one call, where node:crypto takes one call into its binding a round. Per hash at the default rounds (2026-12-01):
// MD5-crypt 3.2 -> 0.4 ms, SHA-256-crypt 16.2 -> 3.4 ms, SHA-512-crypt 20.3 -> 4.6 ms.
import { CRYPT_WASM } from './crypt-module.js';
import { wasm } from './wasm-api.js';

interface CryptExports {
  memory: { buffer: ArrayBuffer };
  crypt_digest(): number;
  crypt_p(): number;
  crypt_s(): number;
  crypt_rounds(algorithm: number, pLength: number, sLength: number, rounds: number): number;
}

/** crypt.c's number and digest length of each hash, by Node's name. */
const ALGORITHMS: Record<string, { index: number; length: number }> = {
  md5: { index: 0, length: 16 },
  sha256: { index: 1, length: 32 },
  sha512: { index: 2, length: 64 },
};
/** The longest p and s crypt.c holds (its MAX_P and MAX_S). */
const MAX_P = 1024;
const MAX_S = 64;

/** The thread's instance, made at its first hash (its memory holds the buffers crypt.c names). */
let instance: CryptExports | undefined;

/**
 * The digest after `rounds` crypt rounds (crypt-rounds.ts says what a round hashes), or undefined when crypt.c
 * cannot take these inputs (another hash, a password or salt longer than its buffers).
 */
export function wasmCryptRounds(algorithm: string, digest: Buffer, p: Buffer, s: Buffer, rounds: number): Buffer | undefined {
  const hash = ALGORITHMS[algorithm];
  if (!hash || digest.length !== hash.length || p.length > MAX_P || s.length > MAX_S || !(rounds >= 0 && rounds <= 0xffffffff)) return undefined;
  instance ??= new wasm.Instance(new wasm.Module(Buffer.from(CRYPT_WASM, 'base64')), {}).exports as CryptExports;
  const memory = new Uint8Array(instance.memory.buffer);
  memory.set(digest, instance.crypt_digest());
  memory.set(p, instance.crypt_p());
  memory.set(s, instance.crypt_s());
  if (instance.crypt_rounds(hash.index, p.length, s.length, rounds) !== 0) return undefined;
  const at = instance.crypt_digest();
  return Buffer.from(memory.subarray(at, at + hash.length)); // a copy: the next hash overwrites the memory
}

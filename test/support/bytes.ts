// Deterministic test bytes shared by the unpack and crypto tests, and a check of where a buffer's bytes live.

/** Pseudo-random bytes from a seeded xorshift generator: incompressible, and the same for the same seed. */
export function pseudoRandom(size: number, seed = 1): Buffer {
  const out = Buffer.alloc(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Compressible but not trivial bytes (a repeating alphabet with seeded noise in every third byte). */
export function compressibleBytes(size: number, seed = 1): Buffer {
  const out = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = i % 3 === 0 ? (x >>> 24) & 0x3f : 0x61 + (i % 13);
  }
  return out;
}

/** Whether two buffers start at the same byte of the same memory (small buffers share Node's pool). */
export const sameMemory = (a: Buffer, b: Buffer): boolean => a.buffer === b.buffer && a.byteOffset === b.byteOffset;

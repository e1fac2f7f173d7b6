// Streamed digests of a file (the image and components): one pass, bounded memory, any subset of algorithms.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Hashes } from './types.js';

export type HashAlgorithm = keyof Hashes;

export async function hashFile<A extends HashAlgorithm>(
  path: string,
  algorithms: readonly A[] = ['sha256', 'sha1', 'md5'] as A[],
): Promise<Pick<Hashes, A>> {
  const hashes = algorithms.map((a) => [a, createHash(a)] as const);
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) {
    for (const [, h] of hashes) h.update(chunk as Buffer);
  }
  const out: Partial<Hashes> = {};
  for (const [a, h] of hashes) out[a] = h.digest('hex');
  return out as Pick<Hashes, A>;
}

// Digests of a file (the image and components): any subset of algorithms in one pass. A small file is read whole
// in one synchronous call; a larger one is streamed, so memory stays bounded whatever the size.
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, fstatSync, openSync, readSync, statSync } from 'node:fs';
import type { HashMessage } from './hash-thread.js';
import { TaskThread } from './task-thread.js';
import type { Hashes } from './types.js';

export type HashAlgorithm = keyof Hashes;

/** The SHA-256 of bytes or of a string's UTF-8, in lower-case hex. */
export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Files up to this size are read in one synchronous call. A stream costs several thread-pool round trips and a
 * 1 MiB buffer per file, even for a file of a few hundred bytes.
 */
const WHOLE_READ_MAX = 4 * 1024 * 1024;

export async function hashFile<A extends HashAlgorithm>(
  path: string,
  algorithms: readonly A[] = ['sha256', 'sha1', 'md5'] as A[],
): Promise<Pick<Hashes, A>> {
  const hashes = algorithms.map((a) => [a, createHash(a)] as const);
  const whole = readSmall(path);
  if (whole) {
    for (const [, h] of hashes) h.update(whole);
  } else {
    for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) {
      for (const [, h] of hashes) h.update(chunk as Buffer);
    }
  }
  const out: Partial<Hashes> = {};
  for (const [a, h] of hashes) out[a] = h.digest('hex');
  return out as Pick<Hashes, A>;
}

const thread = new TaskThread<HashMessage>(import.meta.url, 'hash-thread');

/**
 * Files from this size on are hashed on a thread of their own by hashFileAside: a 64 MB image's SHA-1 and MD5 take
 * ~0.3 s of CPU, which the engine's thread would take from the unpacking; below it a thread's start costs more.
 */
const ASIDE_FROM = 16 * 1024 * 1024;

/**
 * As hashFile, on another thread for a large file (hash-thread.ts), so that the caller's thread goes on meanwhile.
 * A thread that fails (it could not start, or died) leaves the work to this one: the digests are the same.
 */
export async function hashFileAside<A extends HashAlgorithm>(path: string, algorithms: readonly A[]): Promise<Pick<Hashes, A>> {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return hashFile(path, algorithms); // fails as hashFile does
  }
  if (size < ASIDE_FROM) return hashFile(path, algorithms);
  return thread.call<Pick<Hashes, A>>({ path, algorithms: [...algorithms] }).catch(() => hashFile(path, algorithms));
}

/** The whole file when it is at most WHOLE_READ_MAX bytes (read to its end, whatever stat said); else undefined. */
function readSmall(path: string): Buffer | undefined {
  const fd = openSync(path, 'r');
  try {
    const { size } = fstatSync(fd);
    if (size > WHOLE_READ_MAX) return undefined;
    // One byte more than stat says, so a file that grew since is noticed and streamed instead.
    const buffer = Buffer.allocUnsafe(size + 1);
    let length = 0;
    for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, length)) > 0; ) length += n;
    return length <= size ? buffer.subarray(0, length) : undefined;
  } finally {
    closeSync(fd);
  }
}

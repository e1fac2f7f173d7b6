// Blobs (images, temp uploads, debug files, scan result documents) behind one interface: the filesystem store
// (filesystem-blob-store.ts) or the S3 one (s3-blob-store.ts). Writes stream and hash on the way; nothing holds a
// whole blob in memory.
import { createHash } from 'node:crypto';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Hashes } from '../engine/types.js';
import { InvalidInputError, TooLargeError } from '../errors.js';

export interface StoredBlob extends Hashes {
  key: string;
  size: number;
}

export interface WriteOptions {
  /** Larger input fails with TooLargeError and leaves nothing behind. */
  maxBytes?: number;
}

/** Bytes `start` to `end` inclusive (HTTP Range semantics); `end` absent means to the end. */
export interface ByteRange {
  start: number;
  end?: number;
}

/**
 * Uploads that go straight to the store (an S3 pre-signed PUT), never through the API servers. The filesystem
 * store has none: its uploads are PUT to the API's own HMAC-signed URL.
 */
export interface DirectUploads {
  /** A URL that accepts one HTTP PUT of the object `key` until `expiresSeconds` from now. */
  putUrl(key: string, expiresSeconds: number): Promise<string>;
  /**
   * Moves a PUT object to `finalKey` (which no URL can write to), checking its size first (HEAD) and hashing it in
   * one streaming pass. Undefined when nothing was PUT at `uploadKey`; TooLargeError past `maxBytes`.
   */
  adopt(uploadKey: string, finalKey: string, maxBytes: number): Promise<StoredBlob | undefined>;
}

export interface BlobStore {
  /**
   * Streams `source` into `key` (replacing it atomically) and returns its size and hashes. A failed write leaves
   * nothing behind; full storage fails with InsufficientStorageError.
   */
  write(key: string, source: Readable | Buffer, options?: WriteOptions): Promise<StoredBlob>;
  /** The blob's bytes, or those of `range`; NotFoundError when it does not exist. */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /** A local file path for tools that need one (the engine); an S3 store downloads into `workDir` first. */
  localPath(key: string, workDir: string): Promise<string>;
  size(key: string): Promise<number | undefined>;
  delete(key: string): Promise<void>;
  /** Present when clients upload straight to the store (see DirectUploads). */
  readonly directUploads?: DirectUploads;
}

const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/** Keys are '/'-separated names of letters, digits, '.', '_' and '-', never '.' or '..'. */
export function assertBlobKey(key: string): void {
  if (!KEY.test(key) || key.split('/').some((part) => part === '..' || part === '.')) {
    throw new InvalidInputError(`invalid blob key '${key}'`);
  }
}

/**
 * A pass-through stream that counts and hashes what flows through it (failing with TooLargeError past
 * `maxBytes`); `result(key)` gives the StoredBlob once the stream has ended.
 */
export function hashingStream(maxBytes = Number.POSITIVE_INFINITY): { stream: Transform; result(key: string): StoredBlob } {
  const sha256 = createHash('sha256');
  const sha1 = createHash('sha1');
  const md5 = createHash('md5');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) {
        done(new TooLargeError(`upload is larger than the limit of ${maxBytes} bytes`));
        return;
      }
      sha256.update(chunk);
      sha1.update(chunk);
      md5.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, result: (key) => ({ key, size, sha256: sha256.digest('hex'), sha1: sha1.digest('hex'), md5: md5.digest('hex') }) };
}

/** Size and hashes of a stream, read once to its end. */
export async function hashStream(source: Readable, key: string): Promise<StoredBlob> {
  const hashing = hashingStream();
  await pipeline(source, hashing.stream, new Writable({ write: (_chunk, _encoding, done) => done() }));
  return hashing.result(key);
}

// Blobs (images, temp uploads, debug files, scan result documents) behind one interface, so an S3 store can
// replace the filesystem one. Writes stream and hash on the way; nothing holds a whole blob in memory.
import type { Readable } from 'node:stream';
import type { Hashes } from '../engine/types.js';

export interface StoredBlob extends Hashes {
  key: string;
  size: number;
}

export interface WriteOptions {
  /** Larger input fails with TooLargeError and leaves nothing behind. */
  maxBytes?: number;
}

export interface BlobStore {
  /**
   * Streams `source` into `key` (replacing it atomically) and returns its size and hashes. A failed write leaves
   * nothing behind; full storage fails with InsufficientStorageError.
   */
  write(key: string, source: Readable | Buffer, options?: WriteOptions): Promise<StoredBlob>;
  read(key: string): Promise<Readable>;
  /** A local file path for tools that need one (the engine); an S3 store downloads into `workDir` first. */
  localPath(key: string, workDir: string): Promise<string>;
  size(key: string): Promise<number | undefined>;
  delete(key: string): Promise<void>;
}

// BlobStore on a local folder: keys are '/'-separated relative paths confined to the root; writes go to a
// temporary file that is renamed into place once complete.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InsufficientStorageError, InvalidInputError, NotFoundError, TooLargeError } from '../errors.js';
import type { BlobStore, StoredBlob, WriteOptions } from './blob-store.js';

/** The disk (ENOSPC) or the user's quota (EDQUOT) is full: the write may succeed once space is freed. */
const storageFull = (error: unknown): boolean => ['ENOSPC', 'EDQUOT'].includes((error as NodeJS.ErrnoException | undefined)?.code ?? '');

const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

export class FilesystemBlobStore implements BlobStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private pathOf(key: string): string {
    if (!KEY.test(key) || key.split('/').some((part) => part === '..' || part === '.')) {
      throw new InvalidInputError(`invalid blob key '${key}'`);
    }
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new InvalidInputError(`invalid blob key '${key}'`);
    return path;
  }

  async write(key: string, source: Readable | Buffer, options: WriteOptions = {}): Promise<StoredBlob> {
    const path = this.pathOf(key);
    const temp = `${path}.tmp-${randomBytes(6).toString('hex')}`;
    const sha256 = createHash('sha256');
    const sha1 = createHash('sha1');
    const md5 = createHash('md5');
    let size = 0;
    const max = options.maxBytes ?? Number.POSITIVE_INFINITY;
    const hasher = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size > max) {
          done(new TooLargeError(`upload is larger than the limit of ${max} bytes`));
          return;
        }
        sha256.update(chunk);
        sha1.update(chunk);
        md5.update(chunk);
        done(null, chunk);
      },
    });
    const input = Buffer.isBuffer(source) ? Readable.from([source]) : source;
    try {
      await mkdir(dirname(path), { recursive: true });
      await pipeline(input, hasher, createWriteStream(temp, { flags: 'wx' }));
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw storageFull(error) ? new InsufficientStorageError() : error;
    }
    return { key, size, sha256: sha256.digest('hex'), sha1: sha1.digest('hex'), md5: md5.digest('hex') };
  }

  async read(key: string): Promise<Readable> {
    const path = this.pathOf(key);
    if ((await this.size(key)) === undefined) throw new NotFoundError(`blob '${key}' does not exist`);
    return createReadStream(path);
  }

  async localPath(key: string): Promise<string> {
    const path = this.pathOf(key);
    if ((await this.size(key)) === undefined) throw new NotFoundError(`blob '${key}' does not exist`);
    return path;
  }

  async size(key: string): Promise<number | undefined> {
    try {
      const info = await stat(this.pathOf(key));
      return info.isFile() ? info.size : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  /** Absolute folder of the store (for diagnostics). */
  get location(): string {
    return join(this.root);
  }
}

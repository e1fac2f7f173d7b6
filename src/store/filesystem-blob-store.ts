// BlobStore on a local folder: keys are '/'-separated relative paths confined to the root; writes go to a
// temporary file that is renamed into place once complete.
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InsufficientStorageError, InvalidInputError, NotFoundError } from '../errors.js';
import { assertBlobKey, hashingStream, type BlobStore, type ByteRange, type StoredBlob, type WriteOptions } from './blob-store.js';

/** The disk (ENOSPC) or the user's quota (EDQUOT) is full: the write may succeed once space is freed. */
const storageFull = (error: unknown): boolean => ['ENOSPC', 'EDQUOT'].includes((error as NodeJS.ErrnoException | undefined)?.code ?? '');

export class FilesystemBlobStore implements BlobStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private pathOf(key: string): string {
    assertBlobKey(key);
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new InvalidInputError(`invalid blob key '${key}'`);
    return path;
  }

  async write(key: string, source: Readable | Buffer, options: WriteOptions = {}): Promise<StoredBlob> {
    const path = this.pathOf(key);
    const temp = `${path}.tmp-${randomBytes(6).toString('hex')}`;
    const hashing = hashingStream(options.maxBytes);
    const input = Buffer.isBuffer(source) ? Readable.from([source]) : source;
    let output: WriteStream | undefined;
    try {
      await mkdir(dirname(path), { recursive: true });
      output = createWriteStream(temp, { flags: 'wx' });
      await pipeline(input, hashing.stream, output);
      await rename(temp, path);
    } catch (error) {
      // A source that fails at once can reject the pipeline before the file is even opened: wait until the
      // stream has closed (it opens, then closes), or the temp file appears after it was removed.
      if (output && !output.closed) await new Promise<void>((done) => output!.once('close', () => done()));
      await rm(temp, { force: true });
      throw storageFull(error) ? new InsufficientStorageError() : error;
    }
    return hashing.result(key);
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const path = this.pathOf(key);
    if ((await this.size(key)) === undefined) throw new NotFoundError(`blob '${key}' does not exist`);
    return createReadStream(path, range ? { start: range.start, end: range.end } : {});
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

// The only way handlers write: confines paths to the sink's folder, gives every entry a unique path, streams data
// to disk while hashing it, charges files and bytes to the image's Budget, and records links and special files
// without creating them. A problem with one entry (a name clash, a file too big for the byte budget, a filesystem
// error) is recorded and the handler goes on with the next entry.
import { createHash } from 'node:crypto';
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { sha256Hex } from '../hash.js';
import { diskFullError } from '../errors.js';
import type { Problem } from '../types.js';
import type { ChunkSelection } from './chunks.js';
import { LimitError, type EntryMeta, type FileData, type Reader, type ReusableFile, type Sink } from './handler.js';
import { contentKey, type FileReuse, type StoredContent } from './file-reuse.js';
import type { Budget } from './limits.js';
import { Folders } from './sink-folders.js';
import { confinePath, PathTable, type EntryKind } from './sink-paths.js';

/** What a sink wrote or recorded, relative to its root; the driver turns these into FileNodes. */
export interface SinkEntry {
  path: string;
  kind: EntryKind;
  size: number;
  sha256?: string;
  /** First bytes of a regular file (at most HEAD_BYTES), for type detection without reopening it. */
  head?: Buffer;
  /**
   * Its first ANALYSIS_HEAD_BYTES, while the unpack's HeadAllowance lasts: the analysis reads them instead of
   * opening the file again (UnpackResult.heads).
   */
  analysisHead?: Buffer;
  linkTarget?: string;
  meta: EntryMeta;
  /** The file's chunk selection, when it was made while the file's bytes were in memory (see Preselect). */
  selection?: ChunkSelection;
}

/**
 * Selects the chunks of a file from its bytes while they are in memory. The driver would otherwise reopen and
 * read every extracted file to search it; most files of a filesystem hold nothing to extract, and for those the
 * file is never touched again.
 */
export type Preselect = (data: Buffer, path: string) => Promise<ChunkSelection>;

const HEAD_BYTES = 512;
/**
 * What the analysis first reads of every file (the inventory's look: 4 KiB). Kept for as many files as the unpack's
 * HeadAllowance covers, so that a file whose analysis comes from the cache is not opened again.
 */
export const ANALYSIS_HEAD_BYTES = 4096;

/** Bytes of analysis heads the sinks of one unpack may still keep (one object, shared by them). */
export interface HeadAllowance {
  left: number;
}
/** Streamed files are written in batches of about this many bytes (and in one call when they are smaller). */
const WRITE_BATCH = 1024 * 1024;
/*
 * Files are written synchronously (a streamed one in batches of WRITE_BATCH bytes: a millisecond or so each into the
 * page cache). An asynchronous write is a round trip through libuv's thread pool, which the block decoders share: while
 * a SquashFS was extracted, each 1 MiB write of the kernel beside it waited ~145 ms behind queued decodes, and the
 * kernel's own search started 0.35 s late. Blocking the thread for one write is acceptable here: the unpacker runs
 * in the CLI or in a worker thread of the server, never on a thread that serves requests.
 */
/** Copied ranges up to this size are keyed by their content for the store of earlier scans' files (see byContent). */
const REUSE_COPY_MAX = WRITE_BATCH;

export class DirectorySink implements Sink {
  readonly entries: SinkEntry[] = [];
  readonly problems: Problem[] = [];
  private readonly paths = new PathTable((message) => this.problem('warning', message));
  /** Called with each regular file once it is written (the driver searches it while the handler goes on). */
  onFile?: (entry: SinkEntry) => void;
  /** The folders made under root, and those being made. */
  private readonly folders: Folders;
  /** One warning for all absolute paths of this sink, updated as more come (see confine). */
  private absolute?: { problem: Problem; first: string; count: number };

  constructor(
    /** Absolute folder this sink writes into (created on first write). */
    readonly root: string,
    private readonly budget: Budget,
    /** Used as Problem.source and .path for what this sink records. */
    private readonly origin: { source: string; path: string },
    private readonly preselect?: Preselect,
    /** Files kept from earlier scans (file-reuse.ts), for handlers that pass ReusableFile data. */
    readonly reuse?: FileReuse,
    private readonly headAllowance?: HeadAllowance,
  ) {
    this.folders = new Folders(root);
  }

  get signal(): AbortSignal {
    return this.budget.signal;
  }

  problem(kind: Problem['kind'], message: string, offset?: number): void {
    this.problems.push({ source: this.origin.source, path: this.origin.path, kind, message, offset });
  }

  dir(raw: string, meta: EntryMeta = {}): Promise<void> {
    return this.addDir(raw, meta, (path) => this.folders.ensure(path));
  }

  /**
   * Each folder is made by one asynchronous mkdir on libuv's pool once its parent is there, so that a tree's
   * hundreds of mkdir calls (each a few hundred microseconds on ext4) leave the calling thread, which goes on with
   * other work. Call it before any block decoding is queued on that pool: a mkdir queued behind decodes waits for them.
   */
  async dirs(list: ReadonlyArray<readonly [raw: string, meta?: EntryMeta]>): Promise<void> {
    const made = list.map(([raw, meta = {}]) => this.addDir(raw, meta, (path) => this.folders.makeInBackground(path)));
    const results = await Promise.allSettled(made);
    const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (rejected) throw rejected.reason;
  }

  /** Records one folder once `make` has made it; a folder the filesystem refuses is recorded as a problem instead. */
  private async addDir(raw: string, meta: EntryMeta, make: (path: string) => Promise<void> | undefined): Promise<void> {
    const path = this.place(raw, 'directory');
    if (path === undefined) return;
    this.budget.chargeFile();
    try {
      await make(path);
    } catch (error) {
      if (!isFsError(error)) throw error;
      this.budget.releaseFile();
      this.stopIfDiskFull(error); // a full disk stops the extraction
      return this.problem('error', `${path}: not extracted: ${error.message}`);
    }
    this.entries.push({ path, kind: 'directory', size: 0, meta });
  }

  async file(raw: string, data: FileData, meta: EntryMeta = {}): Promise<void> {
    let opened = false;
    const open = () => {
      opened = true;
      return data;
    };
    try {
      await this.put(raw, meta, Buffer.isBuffer(data) ? data.length : isReusable(data) ? data.size : undefined, open);
    } finally {
      if (!opened && data instanceof Readable) data.destroy();
    }
  }

  async copy(raw: string, reader: Reader, start: number, end: number, meta: EntryMeta = {}): Promise<void> {
    const size = end - start;
    const known = await this.byContent(reader, start, size);
    // The size is known: a range too big for the budget is dropped without being read.
    await this.put(raw, meta, size, () => known ?? reader.stream(start, end));
  }

  /**
   * A range stored as it is (an archive's member, a carved chunk) is its own content: with a store of earlier
   * scans' files, one up to REUSE_COPY_MAX bytes is read and keyed by its SHA-256, so that a content an earlier scan
   * extracted is placed from the store (and not searched again when it held nothing) instead of written anew.
   */
  private async byContent(reader: Reader, start: number, size: number): Promise<ReusableFile | undefined> {
    if (!this.reuse || size <= 0 || size > REUSE_COPY_MAX || size > this.budget.remainingBytes) return undefined;
    const bytes = await reader.readExact(start, size);
    const sha256 = sha256Hex(bytes);
    const key = contentKey(sha256);
    const known = (await this.reuse.lookup([key])).get(key);
    return { key, ...(known ? { known } : {}), size, content: { bytes, sha256 }, decoded: () => Readable.from([bytes]) };
  }

  symlink(raw: string, target: string, meta: EntryMeta = {}): void {
    this.record(raw, 'symlink', meta, target);
  }

  hardlink(raw: string, target: string, meta: EntryMeta = {}): void {
    this.record(raw, 'hardlink', meta, target);
  }

  special(raw: string, kind: 'device' | 'fifo' | 'socket', meta: EntryMeta = {}): void {
    this.record(raw, kind, meta);
  }

  /**
   * Writes one regular file. A file that does not fit in what is left of the byte budget is dropped (never kept
   * truncated: a partial file would be analysed as if it were real) and recorded as a 'limit' problem; so is one
   * the filesystem refuses, as an 'error'. Either way the handler goes on with its next entry. A full disk stops
   * the extraction (DiskFullError). Other errors (time, file count, a corrupt stream) are the handler's to deal with.
   */
  private async put(raw: string, meta: EntryMeta, size: number | undefined, open: () => FileData): Promise<void> {
    const path = this.place(raw, 'file');
    if (path === undefined) return;
    const left = this.budget.remainingBytes;
    let counted = false;
    try {
      this.budget.chargeFile();
      counted = true;
      if (size !== undefined && size > left) throw new LimitError('bytes', 'file larger than the bytes left');
      const slash = path.lastIndexOf('/');
      await this.folders.ensure(slash > 0 ? path.slice(0, slash) : '');
      const data = open();
      const entry = Buffer.isBuffer(data)
        ? await this.writeBuffer(path, data)
        : isReusable(data)
          ? await this.writeReusable(path, data)
          : await this.writeStreamed(path, data);
      const written: SinkEntry = { ...entry, meta };
      this.entries.push(written);
      this.onFile?.(written);
    } catch (error) {
      this.paths.release(path);
      if (counted) this.budget.releaseFile();
      if (error instanceof LimitError && error.limit === 'bytes') return this.problem('limit', this.dropped(path, size, left));
      if (isFsError(error)) {
        this.stopIfDiskFull(error);
        return this.problem('error', `${path}: not extracted: ${error.message}`);
      }
      throw error;
    }
  }

  /**
   * A full disk is not a problem of one entry: every later write would fail too, and a scan that goes on would end
   * `done` with files silently missing. It stops the whole extraction (the driver rethrows the DiskFullError).
   */
  private stopIfDiskFull(error: unknown): void {
    const full = diskFullError(error);
    if (!full) return;
    this.budget.fail(full);
    throw full;
  }

  private dropped(path: string, size: number | undefined, left: number): string {
    const limit = `the extracted size limit of ${this.budget.limits.maxTotalBytes} bytes`;
    if (size === undefined) return `${path}: not extracted: it grew past the ${left} bytes left of ${limit}`;
    return `${path}: not extracted: its ${size} bytes are more than the ${left} bytes left of ${limit}`;
  }

  /**
   * A file an earlier scan extracted is placed from the store (a hard link) instead of decoded; any other is
   * decoded, written, and then kept and remembered for the next scan. A placed file is searched for chunks again
   * unless it was found to hold none.
   */
  private async writeReusable(path: string, file: ReusableFile): Promise<Omit<SinkEntry, 'meta'>> {
    const target = join(this.root, path);
    if (file.known && this.reuse) {
      this.budget.checkTime();
      this.budget.chargeBytes(file.size);
      const bytes = file.content?.bytes;
      const first = bytes ? (this.reuse.place(file.known, file.size, target) ? bytes : undefined) : this.reuse.placeAndRead(file.known, file.size, target, ANALYSIS_HEAD_BYTES);
      if (first) {
        // a content that held chunks is searched again, from the bytes at hand when the handler gave them
        const selection = !this.preselect ? undefined : file.known.chunkFree ? noChunks() : bytes ? await this.preselect(bytes, path) : undefined;
        for (const alias of file.aliases ?? []) this.reuse.remember(alias, file.known);
        return { path, kind: 'file', size: file.size, sha256: file.known.sha256, ...this.heads(first), selection };
      }
      this.budget.releaseBytes(file.size);
    }
    const entry = file.content ? await this.writeBuffer(path, file.content.bytes, file.content.sha256) : await this.writeStreamed(path, file.decoded());
    const { selection } = entry;
    const chunkFree = selection !== undefined && selection.chunks.length === 0 && selection.problems.length === 0 && !selection.limit;
    if (entry.size === file.size && entry.sha256 && this.reuse) {
      const content: StoredContent = { sha256: entry.sha256, chunkFree, ...(file.tail ? { tail: file.tail } : {}) };
      this.reuse.decoded(file.key, content, target, entry.size);
      for (const alias of file.aliases ?? []) this.reuse.remember(alias, content);
    }
    return entry;
  }

  /**
   * Fast path: one write, no stream machinery (most filesystem handlers hand over decoded buffers). `known`: the
   * data's SHA-256, when the handler already hashed it.
   */
  private async writeBuffer(path: string, data: Buffer, known?: string): Promise<Omit<SinkEntry, 'meta'>> {
    this.budget.checkTime();
    this.budget.chargeBytes(data.length);
    const target = join(this.root, path);
    try {
      const selection = await this.writeAndSelect(target, path, data);
      const sha256 = known ?? sha256Hex(data);
      return { path, kind: 'file', size: data.length, sha256, ...this.heads(data), selection };
    } catch (error) {
      this.budget.releaseBytes(data.length);
      await rm(target, { force: true });
      throw error;
    }
  }

  /** Writes a whole file, then selects its chunks from the same bytes (the selection may wait on reads or decodes). */
  private async writeAndSelect(target: string, path: string, data: Buffer): Promise<ChunkSelection | undefined> {
    writeFileSync(target, data);
    return this.preselect?.(data, path);
  }

  /**
   * Streams chunks to disk while hashing them. Small outputs are gathered and written in one call (the common
   * case: most files of a filesystem are a few blocks); larger ones go out through one file descriptor in batches.
   * A WriteStream per file costs far more than the write itself when thousands of files are extracted.
   */
  private async writeStreamed(path: string, data: Readable | AsyncIterable<Buffer>): Promise<Omit<SinkEntry, 'meta'>> {
    const target = join(this.root, path);
    const hash = createHash('sha256');
    let head: Buffer | undefined;
    let size = 0;
    let batch: Buffer[] = [];
    let batchBytes = 0;
    let fd: number | undefined;
    let selection: ChunkSelection | undefined;
    try {
      for await (const chunk of data as AsyncIterable<Buffer>) {
        this.budget.checkTime();
        this.budget.chargeBytes(chunk.length);
        if (size < ANALYSIS_HEAD_BYTES) head = Buffer.concat(head ? [head, chunk.subarray(0, ANALYSIS_HEAD_BYTES - size)] : [chunk.subarray(0, ANALYSIS_HEAD_BYTES)]);
        size += chunk.length;
        hash.update(chunk);
        batch.push(chunk);
        batchBytes += chunk.length;
        if (batchBytes >= WRITE_BATCH) {
          fd ??= openSync(target, 'w');
          writeAll(fd, batch);
          batch = [];
          batchBytes = 0;
        }
      }
      if (fd !== undefined) {
        writeAll(fd, batch);
        closeSync(fd);
        fd = undefined;
      } else selection = await this.writeAndSelect(target, path, batch.length === 1 ? batch[0]! : Buffer.concat(batch, batchBytes));
    } catch (error) {
      if (data instanceof Readable) data.destroy();
      if (fd !== undefined) closeQuietly(fd);
      // Keep nothing half-written: a partial file would be analysed as if it were real. Its bytes are given back.
      await rm(target, { force: true });
      this.budget.releaseBytes(size);
      throw error;
    }
    return { path, kind: 'file', size, sha256: hash.digest('hex'), ...this.heads(head ?? Buffer.alloc(0)), selection };
  }

  /** A file's head, and its analysis head while the allowance lasts (copies: `data` may be a decoder's buffer). */
  private heads(data: Buffer): Pick<SinkEntry, 'head' | 'analysisHead'> {
    const length = Math.min(data.length, ANALYSIS_HEAD_BYTES);
    const allowance = this.headAllowance;
    if (!allowance || allowance.left < length) return { head: Buffer.from(data.subarray(0, HEAD_BYTES)) };
    allowance.left -= length;
    const analysisHead = Buffer.from(data.subarray(0, length));
    return { head: analysisHead.subarray(0, HEAD_BYTES), analysisHead };
  }

  /** Records a link or special file (never created on disk). */
  private record(raw: string, kind: 'symlink' | 'hardlink' | 'device' | 'fifo' | 'socket', meta: EntryMeta, linkTarget?: string): void {
    const path = this.place(raw, kind);
    if (path === undefined) return;
    this.budget.chargeFile();
    const entry: SinkEntry = { path, kind, size: 0, meta };
    if (linkTarget !== undefined) entry.linkTarget = linkTarget;
    this.entries.push(entry);
  }

  /** Confines `raw` and gives it its unique place in the tree; undefined when refused (recorded) or a repeated directory. */
  private place(raw: string, kind: EntryKind): string | undefined {
    const result = confinePath(raw);
    if ('error' in result) {
      // the archive's own root as a directory entry ("./" from `tar -C dir -cf x .`, "/"): the output folder itself
      if (kind === 'directory' && /^[./]*$/.test(raw) && !raw.includes('..')) return undefined;
      this.problem('error', `refused entry: ${result.error}`);
      return undefined;
    }
    if (result.absolute) this.noteAbsolute(raw);
    return this.paths.place(result.path, kind);
  }

  /** Absolute paths are kept relative (as GNU tar does), with one warning per sink saying how many and the first. */
  private noteAbsolute(raw: string): void {
    if (!this.absolute) {
      this.problem('warning', '');
      this.absolute = { problem: this.problems.at(-1)!, first: raw, count: 0 };
    }
    const note = this.absolute;
    note.count++;
    note.problem.message = `${note.count} absolute path(s) stored relative to the output folder, the first ${JSON.stringify(note.first)}`;
  }

}

function isReusable(data: FileData): data is ReusableFile {
  return typeof (data as Partial<ReusableFile>).decoded === 'function';
}

/** The selection of a file found to hold no chunk. */
function noChunks(): ChunkSelection {
  return { chunks: [], gaps: [], problems: [] };
}

/** An error from a filesystem call (EEXIST, ENOTDIR, ENAMETOOLONG, ...), as opposed to one from the data. */
function isFsError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/** Writes every buffer of `parts` at the handle's current position (writev may write less than asked). */
/** Closes a descriptor on a path that is already failing: the first error is the one reported. */
function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // ignored: see above
  }
}

function writeAll(fd: number, parts: Buffer[]): void {
  for (const part of parts) {
    let done = 0;
    while (done < part.length) done += writeSync(fd, part, done, part.length - done);
  }
}

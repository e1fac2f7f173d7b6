// The only way handlers write: confines paths to the sink's folder, streams data to disk while hashing it,
// charges files and bytes to the image's Budget, and records links and special files without creating them.
import { createHash } from 'node:crypto';
import { mkdir, open, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Problem } from '../types.js';
import type { ChunkSelection } from './chunks.js';
import type { EntryMeta, FileData, Reader, Sink } from './handler.js';
import type { Budget } from './limits.js';

/** What a sink wrote or recorded, relative to its root; the driver turns these into FileNodes. */
export interface SinkEntry {
  path: string;
  kind: 'file' | 'directory' | 'symlink' | 'hardlink' | 'device' | 'fifo' | 'socket';
  size: number;
  sha256?: string;
  /** First bytes of a regular file, for type detection without reopening it. */
  head?: Buffer;
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
/** Streamed files are written in batches of about this many bytes (and in one call when they are smaller). */
const WRITE_BATCH = 1024 * 1024;

/**
 * Normalises a path from an archive or filesystem to a safe relative path, or returns an error message.
 * Absolute paths are made relative (as tar and unsquashfs do); '..' segments and NUL bytes are refused.
 */
export function confinePath(raw: string): { path: string } | { error: string } {
  if (raw.includes('\0')) return { error: `path contains a NUL byte: ${JSON.stringify(raw)}` };
  const parts: string[] = [];
  for (const part of raw.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') return { error: `path escapes the output folder: ${JSON.stringify(raw)}` };
    parts.push(part);
  }
  if (parts.length === 0) return { error: `empty path: ${JSON.stringify(raw)}` };
  return { path: parts.join('/') };
}

export class DirectorySink implements Sink {
  readonly entries: SinkEntry[] = [];
  readonly problems: Problem[] = [];
  private readonly madeDirs = new Set<string>();

  constructor(
    /** Absolute folder this sink writes into (created on first write). */
    readonly root: string,
    private readonly budget: Budget,
    /** Used as Problem.source and .path for what this sink records. */
    private readonly origin: { source: string; path: string },
    private readonly preselect?: Preselect,
  ) {}

  get signal(): AbortSignal {
    return this.budget.signal;
  }

  problem(kind: Problem['kind'], message: string, offset?: number): void {
    this.problems.push({ source: this.origin.source, path: this.origin.path, kind, message, offset });
  }

  async dir(raw: string, meta: EntryMeta = {}): Promise<void> {
    const path = this.confine(raw);
    if (path === undefined) return;
    this.budget.chargeFile();
    await this.ensureDir(path);
    this.entries.push({ path, kind: 'directory', size: 0, meta });
  }

  async file(raw: string, data: FileData, meta: EntryMeta = {}): Promise<void> {
    const path = this.confine(raw);
    if (path === undefined) {
      if (data instanceof Readable) data.destroy();
      return;
    }
    this.budget.chargeFile();
    const slash = path.lastIndexOf('/');
    await this.ensureDir(slash > 0 ? path.slice(0, slash) : '');
    const target = join(this.root, path);
    if (Buffer.isBuffer(data)) {
      // Fast path: one write, no stream machinery (most filesystem handlers hand over decoded buffers).
      this.budget.checkTime();
      this.budget.chargeBytes(data.length);
      const sha256 = createHash('sha256').update(data).digest('hex');
      const selection = await this.writeAndSelect(target, path, data);
      this.entries.push({ path, kind: 'file', size: data.length, sha256, head: Buffer.from(data.subarray(0, HEAD_BYTES)), meta, selection });
      return;
    }
    await this.writeStreamed(target, path, data, meta);
  }

  /** Writes a whole file and, meanwhile, selects its chunks from the same bytes. */
  private async writeAndSelect(target: string, path: string, data: Buffer): Promise<ChunkSelection | undefined> {
    const write = writeFile(target, data);
    try {
      return await this.preselect?.(data, path);
    } finally {
      await write;
    }
  }

  /**
   * Streams chunks to disk while hashing them. Small outputs are gathered and written in one call (the common
   * case: most files of a filesystem are a few blocks); larger ones go out through one file handle in batches.
   * A WriteStream per file costs far more than the write itself when thousands of files are extracted.
   */
  private async writeStreamed(target: string, path: string, data: Readable | AsyncIterable<Buffer>, meta: EntryMeta): Promise<void> {
    const hash = createHash('sha256');
    let head: Buffer | undefined;
    let size = 0;
    let batch: Buffer[] = [];
    let batchBytes = 0;
    let handle: FileHandle | undefined;
    let selection: ChunkSelection | undefined;
    try {
      for await (const chunk of data as AsyncIterable<Buffer>) {
        this.budget.checkTime();
        this.budget.chargeBytes(chunk.length);
        if (size < HEAD_BYTES) head = Buffer.concat(head ? [head, chunk.subarray(0, HEAD_BYTES - size)] : [chunk.subarray(0, HEAD_BYTES)]);
        size += chunk.length;
        hash.update(chunk);
        batch.push(chunk);
        batchBytes += chunk.length;
        if (batchBytes >= WRITE_BATCH) {
          handle ??= await open(target, 'w');
          await writeAll(handle, batch);
          batch = [];
          batchBytes = 0;
        }
      }
      if (handle) await writeAll(handle, batch);
      else selection = await this.writeAndSelect(target, path, batch.length === 1 ? batch[0]! : Buffer.concat(batch, batchBytes));
      await handle?.close();
    } catch (error) {
      if (data instanceof Readable) data.destroy();
      await handle?.close().catch(() => undefined);
      // Keep nothing half-written: a partial file would be analysed as if it were real.
      await rm(target, { force: true });
      throw error;
    }
    this.entries.push({ path, kind: 'file', size, sha256: hash.digest('hex'), head: head ?? Buffer.alloc(0), meta, selection });
  }

  async copy(raw: string, reader: Reader, start: number, end: number, meta: EntryMeta = {}): Promise<void> {
    await this.file(raw, reader.stream(start, end), meta);
  }

  symlink(raw: string, target: string, meta: EntryMeta = {}): void {
    const path = this.confine(raw);
    if (path === undefined) return;
    this.budget.chargeFile();
    this.entries.push({ path, kind: 'symlink', size: 0, linkTarget: target, meta });
  }

  hardlink(raw: string, target: string, meta: EntryMeta = {}): void {
    const path = this.confine(raw);
    if (path === undefined) return;
    this.budget.chargeFile();
    this.entries.push({ path, kind: 'hardlink', size: 0, linkTarget: target, meta });
  }

  special(raw: string, kind: 'device' | 'fifo' | 'socket', meta: EntryMeta = {}): void {
    const path = this.confine(raw);
    if (path === undefined) return;
    this.budget.chargeFile();
    this.entries.push({ path, kind, size: 0, meta });
  }

  private confine(raw: string): string | undefined {
    const result = confinePath(raw);
    if ('error' in result) {
      this.problem('error', `refused entry: ${result.error}`);
      return undefined;
    }
    return result.path;
  }

  private async ensureDir(path: string): Promise<void> {
    if (this.madeDirs.has(path)) return;
    await mkdir(join(this.root, path), { recursive: true });
    this.madeDirs.add(path);
  }
}

/** Writes every buffer of `parts` at the handle's current position (writev may write less than asked). */
async function writeAll(handle: FileHandle, parts: Buffer[]): Promise<void> {
  for (const part of parts) {
    let done = 0;
    while (done < part.length) done += (await handle.write(part, done, part.length - done)).bytesWritten;
  }
}

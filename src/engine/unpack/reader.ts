// Random access to a file on disk through positional reads, with a small page cache so that parsers doing many
// small header reads stay fast. Memory stays bounded (PAGE_SIZE × MAX_PAGES) whatever the file size.
//
// Reads are synchronous: the image was just hashed, so its pages are in the kernel's cache, and a read from there
// takes microseconds, while an asynchronous one is a round trip through libuv's thread pool, which the block
// decoders share (an xz SquashFS's extraction made one per page it read, each a wait between two decodes). The
// unpacker runs in the CLI or a scan's worker thread, never on a thread that serves requests (as sink.ts).
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { readAt, ReadScratch } from '../file-read.js';
import { FormatError } from '../format-error.js';
import type { Reader } from './handler.js';

const PAGE_SIZE = 64 * 1024;
const MAX_PAGES = 64;
/**
 * The buffer every FileReader's readTransient() on this thread reads into. Fresh memory for each read of that kind
 * (the chunk search's 4 MiB windows, the pieces of a hashed range) cost the kernel's page faults behind the copy and
 * the collections that the buffers' external memory brought: the reads that key a 61 MB SquashFS's stored forms
 * (stored-forms.ts) took 0.3 s of the engine's thread, 55 ms into this buffer (2026-12-02).
 */
const transient = new ReadScratch();

export class FileReader implements Reader {
  private readonly pages = new Map<number, Buffer>();

  private constructor(
    readonly path: string,
    readonly size: number,
    private readonly handle: FileHandle,
  ) {}

  static async open(path: string): Promise<FileReader> {
    const handle = await open(path, 'r');
    try {
      const { size } = await handle.stat();
      return new FileReader(path, size, handle);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    this.pages.clear();
    await this.handle.close();
  }

  async read(offset: number, length: number): Promise<Buffer> {
    checkRange(offset, length);
    const end = Math.min(offset + length, this.size);
    if (offset >= end) return Buffer.alloc(0);
    // Large reads bypass the cache.
    if (end - offset > PAGE_SIZE) {
      return readAt(this.handle.fd, offset, end - offset);
    }
    const first = Math.floor(offset / PAGE_SIZE);
    const last = Math.floor((end - 1) / PAGE_SIZE);
    if (first === last) {
      const page = this.page(first);
      return page.subarray(offset - first * PAGE_SIZE, end - first * PAGE_SIZE);
    }
    const parts: Buffer[] = [];
    for (let p = first; p <= last; p++) {
      const page = this.page(p);
      const from = p === first ? offset - p * PAGE_SIZE : 0;
      const to = p === last ? end - p * PAGE_SIZE : page.length;
      parts.push(page.subarray(from, to));
    }
    return Buffer.concat(parts);
  }

  async readExact(offset: number, length: number): Promise<Buffer> {
    const data = await this.read(offset, length);
    if (data.length !== length) {
      throw new FormatError(`truncated: wanted ${length} bytes at offset ${offset}, file ends at ${this.size}`);
    }
    return data;
  }

  /**
   * The range in pieces of PAGE_SIZE, read synchronously as the consumer asks for them (see the top of the file: a
   * stream's asynchronous reads waited behind the block decoders in libuv's pool, and a 2.4 MB kernel copied beside
   * a SquashFS's extraction took 0.3 s). The stream reads through this reader's handle: it must be consumed before
   * the reader is closed.
   */
  stream(start: number, end: number = this.size): Readable {
    return Readable.from(this.pieces(start, Math.min(end, this.size)), { objectMode: false });
  }

  readTransient(offset: number, length: number): Buffer {
    checkRange(offset, length);
    const end = Math.min(offset + length, this.size);
    return offset >= end ? Buffer.alloc(0) : readAt(this.handle.fd, offset, end - offset, transient);
  }

  private *pieces(start: number, stop: number): Generator<Buffer> {
    for (let at = start; at < stop; at += PAGE_SIZE) {
      const piece = readAt(this.handle.fd, at, Math.min(PAGE_SIZE, stop - at));
      if (piece.length === 0) return; // the file shrank under us: the consumer sees a short stream
      yield piece;
    }
  }

  private page(index: number): Buffer {
    const cached = this.pages.get(index);
    if (cached) {
      // Refresh its place in the LRU order.
      this.pages.delete(index);
      this.pages.set(index, cached);
      return cached;
    }
    const page = readAt(this.handle.fd, index * PAGE_SIZE, Math.min(PAGE_SIZE, this.size - index * PAGE_SIZE));
    this.pages.set(index, page);
    if (this.pages.size > MAX_PAGES) this.pages.delete(this.pages.keys().next().value as number);
    return page;
  }
}

function checkRange(offset: number, length: number): void {
  if (offset < 0 || length < 0 || !Number.isFinite(offset) || !Number.isFinite(length)) {
    throw new FormatError(`invalid read of ${length} bytes at offset ${offset}`);
  }
}

/** A Reader over an in-memory buffer: for tests and for small payloads already decoded. */
export class BufferReader implements Reader {
  constructor(
    private readonly data: Buffer,
    readonly path = '<buffer>',
  ) {}

  get size(): number {
    return this.data.length;
  }

  async read(offset: number, length: number): Promise<Buffer> {
    return this.data.subarray(offset, Math.min(offset + length, this.data.length));
  }

  async readExact(offset: number, length: number): Promise<Buffer> {
    if (offset < 0 || offset + length > this.data.length) {
      throw new FormatError(`truncated: wanted ${length} bytes at offset ${offset}, data ends at ${this.data.length}`);
    }
    return this.data.subarray(offset, offset + length);
  }

  stream(start: number, end: number = this.data.length): Readable {
    return Readable.from([this.data.subarray(start, end)]);
  }
}

// Synchronous reads of a file's bytes, shared by the FileIndex, the unpacker's readers and the analysis threads (a
// module of its own so that a thread reading files does not load the index's glob matching).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * One buffer that reads of files nobody keeps go into, for a reader that is done with each file's bytes before it
 * reads the next (the inventory's identifiers: each file's view lives while its identifiers run). A new buffer per
 * read is fresh memory: on the bench image's tree, reading 161 MB of such files took 250 ms with new buffers (the
 * kernel's page faults behind the copy) and 25-45 ms into one buffer; the scan also paid the garbage collections
 * that the new buffers' external memory brought.
 */
export class ReadScratch {
  private buffer = Buffer.alloc(0);

  /**
   * A buffer of `size` bytes, valid until the next call (it overwrites the last one's bytes). Above SCRATCH_MAX a
   * buffer of its own, not kept: a scratch that lives with its thread (the rule thread's) holds at most that much.
   */
  take(size: number): Buffer {
    if (size > SCRATCH_MAX) return Buffer.allocUnsafe(size);
    if (this.buffer.length < size) this.buffer = Buffer.allocUnsafe(Math.max(size, Math.min(2 * this.buffer.length, SCRATCH_MAX)));
    return this.buffer.subarray(0, size);
  }
}
/** The most a scratch keeps; it grows to twice its size at a time up to this. */
export const SCRATCH_MAX = 16 * 1024 * 1024;

/** At most `length` bytes of a file from `offset`, read synchronously (open, read, close); into `scratch` if given. */
export function readFileRange(path: string, offset: number, length: number, scratch?: ReadScratch): Buffer {
  const fd = openSync(path, 'r');
  try {
    return readAt(fd, offset, length, scratch);
  } finally {
    closeSync(fd);
  }
}

/**
 * Requests larger than this are cut to what the file holds from `offset` before the buffer is allocated: readers
 * ask for a fixed chunk (the embedded-token search 1 MiB), and a 1 MiB buffer for each small file, kept whole behind
 * the view returned, made 2.2 GB of allocations on the 64 MB bench image, each 64 MB of which V8 answers with a
 * collection ("external memory pressure"), beside a mapping and unmapping per buffer.
 */
const FIT_FROM = 64 * 1024;

/** At most `length` bytes of an open file from `offset` (fewer at its end), read synchronously; into `scratch` if given. */
export function readAt(fd: number, offset: number, length: number, scratch?: ReadScratch): Buffer {
  let wanted = Math.max(0, length);
  if (wanted > FIT_FROM) {
    const st = fstatSync(fd);
    if (st.isFile()) wanted = Math.min(wanted, Math.max(0, st.size - Math.max(0, offset)));
  }
  const buffer = scratch ? scratch.take(wanted) : Buffer.allocUnsafe(wanted);
  let filled = 0;
  while (filled < buffer.length) {
    const n = readSync(fd, buffer, filled, buffer.length - filled, Math.max(0, offset) + filled);
    if (n === 0) break;
    filled += n;
  }
  return buffer.subarray(0, filled);
}

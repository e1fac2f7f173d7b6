// Random access to a binary's bytes for the ELF and PE parsers: a size plus bounded reads. Parsers never read a
// whole file; they read headers and the tables they need, each capped, so a huge or hostile file stays cheap.
import type { FileIndex } from '../file-index.js';
import { FormatError } from '../format-error.js';
import type { FileNode } from '../types.js';

export interface ByteSource {
  readonly size: number;
  /** Up to `length` bytes at `offset`; shorter only at the end of the data. */
  read(offset: number, length: number): Promise<Buffer>;
}

export function bufferSource(buf: Buffer): ByteSource {
  return {
    size: buf.length,
    read: async (offset, length) => buf.subarray(Math.max(0, offset), Math.max(0, offset) + Math.max(0, length)),
  };
}

/** A file of the extracted tree, read through FileIndex.readRange. */
export function nodeSource(index: FileIndex, node: FileNode): ByteSource {
  return { size: node.size, read: (offset, length) => index.readRange(node, offset, length) };
}

/** Exactly `length` bytes at `offset`, or a FormatError naming `what` (over `max`, outside the file, truncated). */
export async function readExact(src: ByteSource, offset: number, length: number, what: string, max: number): Promise<Buffer> {
  if (length < 0 || length > max) throw new FormatError(`${what}: ${length} bytes exceeds the ${max}-byte cap`);
  if (offset < 0 || offset + length > src.size) throw new FormatError(`${what}: range ${offset}+${length} is outside the file (${src.size} bytes)`);
  const buf = await src.read(offset, length);
  if (buf.length < length) throw new FormatError(`${what}: truncated at ${offset + buf.length}`);
  return buf;
}

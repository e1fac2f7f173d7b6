// Zstandard frames in [start, end) of a reader, decoded with fzstd's streaming decoder in bounded steps: the blocks
// a Zstandard handler or a zip entry (methods 93 and 20) yields. Empty output chunks are dropped (zlib.crc32 of an
// empty buffer returns 0, not the running CRC, so they would break a caller's checksum).
import { Decompress } from 'fzstd';
import { FormatError } from '../../format-error.js';
import type { Reader } from '../handler.js';

const STEP = 64 * 1024;

/** Yields the decoded blocks; returns the number of input bytes read (end - start). */
export async function* zstdBlocks(reader: Reader, start: number, end: number, signal?: AbortSignal): AsyncGenerator<Buffer, number> {
  if (end <= start) throw new FormatError('zstd: empty stream');
  const out: Buffer[] = [];
  const decoder = new Decompress((chunk) => {
    if (chunk.length > 0) out.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
  });
  for (let at = start; at < end; at += STEP) {
    signal?.throwIfAborted();
    const piece = await reader.read(at, Math.min(STEP, end - at));
    if (piece.length === 0) throw new FormatError('zstd: truncated stream');
    try {
      decoder.push(piece, at + piece.length >= end);
    } catch (error) {
      throw new FormatError(`zstd: ${error instanceof Error ? error.message : String(error)}`);
    }
    while (out.length > 0) yield out.shift()!;
  }
  return end - start;
}

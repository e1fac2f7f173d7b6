// What one file's bytes (and its path) give the crypto stage: detections, the crypto functions an ELF imports, and
// whether it is an executable. The stage computes them on the engine's thread, through the FileIndex, and on the
// crypto facts thread (crypto-facts-thread.ts), from the file on disk, side by side. Both read the same bytes the
// same way, so the facts are the same, and they are what the analysis cache keeps per file.
import { closeSync, openSync } from 'node:fs';
import { readAt, ReadScratch } from '../file-read.js';
import type { AlgorithmHit, FileDetections } from './detections.js';
import { detectFile } from './detect-file.js';
import { elfCryptoImports } from './elf-imports.js';
import type { StreamGap } from './scanner.js';
import type { RangeReader } from './der-carver.js';

export interface CryptoFileFacts {
  detections: FileDetections;
  imports: AlgorithmHit[];
  executable?: 'ELF' | 'PE';
}

/** Read size of a file's single pass (as FileIndex.stream's). */
const CHUNK = 1024 * 1024;

/** Keys compiled into a program (test keys of `openssl speed`, vendor signing keys) are told apart from key files. */
function executableKind(magic: Buffer): 'ELF' | 'PE' | undefined {
  const text = magic.toString('latin1');
  return text === '\x7fELF' ? 'ELF' : text.startsWith('MZ') ? 'PE' : undefined;
}

/**
 * The file in 1 MiB chunks through its reader, with the ranges an encoded format occupies (`skip`, in offset
 * order) passed over as gaps: a compressed stream's or a SquashFS's bytes are searched decoded, in the extracted
 * files.
 */
async function* chunksOf(read: RangeReader, size: number, skip: ReadonlyArray<readonly [number, number]>): AsyncGenerator<Buffer | StreamGap> {
  let at = 0;
  for (const [start, end] of [...skip, [size, size] as const]) {
    const stop = Math.min(start, size);
    while (at < stop) {
      const chunk = await read(at, Math.min(CHUNK, stop - at));
      if (chunk.length === 0) return;
      yield chunk;
      at += chunk.length;
    }
    const resume = Math.min(end, size);
    if (resume > at) {
      yield { skip: resume - at };
      at = resume;
    }
  }
}

/** A file's facts: `path` is its path in the extracted tree, `encoded` the ranges its extracted chunks occupy. */
export async function cryptoFileFacts(
  file: { path: string; size: number; encoded: ReadonlyArray<readonly [number, number]> },
  read: RangeReader,
  now: Date,
  signal?: AbortSignal,
  /** Reads the pieces of the single pass, which nothing keeps (`read` by default). */
  readPiece: RangeReader = read,
): Promise<CryptoFileFacts> {
  const detections = await detectFile(file.path, chunksOf(readPiece, file.size, file.encoded), read, { now, signal });
  const imports = await elfCryptoImports({ size: file.size, read });
  const executable = executableKind(await read(0, 4));
  return { detections, imports, ...(executable ? { executable } : {}) };
}

/** Who computes a file's facts, in the stage's shared claims (facts-sharing.ts). */
export const CLAIMED_BY_ENGINE = 1;
export const CLAIMED_BY_THREAD = 2;

/**
 * A file's facts asked of the crypto facts thread: `file` is where it is on disk, `now` the stage's clock (ms).
 * `claims[slot]` says who computes them: the thread skips a file the engine's thread has claimed.
 */
export interface CryptoFactsMessage {
  file: string;
  path: string;
  size: number;
  encoded: ReadonlyArray<readonly [number, number]>;
  now: number;
  claims: Int32Array;
  slot: number;
}

/**
 * The thread's pieces of the single pass go through one buffer: a new 1 MiB buffer per piece grew the thread's
 * malloc arena, which kept that memory after the thread ended.
 */
const pieces = new ReadScratch();

/** The thread's side: the facts of a file on disk, or null when the engine's thread took the file first. */
export async function cryptoFactsWork(message: CryptoFactsMessage): Promise<CryptoFileFacts | null> {
  if (Atomics.compareExchange(message.claims, message.slot, 0, CLAIMED_BY_THREAD) !== 0) return null;
  const fd = openSync(message.file, 'r');
  try {
    const read: RangeReader = async (offset, length) => readAt(fd, offset, length);
    const readPiece: RangeReader = async (offset, length) => readAt(fd, offset, Math.min(length, CHUNK), pieces);
    return await cryptoFileFacts(message, read, new Date(message.now), undefined, readPiece);
  } finally {
    closeSync(fd);
  }
}

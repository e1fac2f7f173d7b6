// The one test harness for running a handler the way the driver does: chunk() at an offset (with the driver's abort
// signal and byte budget), then extract() into a fresh temporary folder through a real DirectorySink and Budget. Used
// by the compression, archive, filesystem, firmware and boot handler tests. Every folder made here is removed when
// the test file ends.
import { readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { FormatError } from '../../../src/engine/format-error.js';
import type { ChunkInfo, Handler, Reader } from '../../../src/engine/unpack/handler.js';
import { Budget, resolveLimits, type Limits } from '../../../src/engine/unpack/limits.js';
import { BufferReader, FileReader } from '../../../src/engine/unpack/reader.js';
import { DirectorySink, type SinkEntry } from '../../../src/engine/unpack/sink.js';
import type { Problem } from '../../../src/engine/types.js';
import { tempDir as makeTempDir } from '../../support/temp-dirs.js';

/** A fresh temporary folder, removed after the test file (support/temp-dirs.ts). */
export function tempDir(prefix = 'handler'): string {
  return makeTempDir(`firmscope-${prefix}`);
}

export interface Extraction {
  chunk: ChunkInfo | null;
  sink: DirectorySink;
  /** The folder the sink wrote into. */
  root: string;
  /** What chunk() or extract() threw, if anything. */
  error?: unknown;
}

/**
 * Limits of a handler test unless it sets its own: 20 s, and a fixed byte budget, since the default of 20× the
 * input is for whole images, not for the tiny, highly compressible samples handler tests build.
 */
const HANDLER_TEST_LIMITS: Partial<Limits> = { timeoutMs: 20_000, maxTotalBytes: 256 * 1024 ** 2 };

/**
 * Runs chunk() at `start` and, when it found a chunk, extract() into a fresh folder (HANDLER_TEST_LIMITS unless
 * `limits` says otherwise). The source is a path (opened and closed here) or bytes. Never throws: the error is returned.
 */
export async function extractWith(handler: Handler, source: string | Buffer, start = 0, limits: Partial<Limits> = {}): Promise<Extraction> {
  const reader = typeof source === 'string' ? await FileReader.open(source) : new BufferReader(source);
  try {
    return await extractFrom(handler, reader, start, { ...HANDLER_TEST_LIMITS, ...limits }, 'image');
  } finally {
    if (reader instanceof FileReader) await reader.close();
  }
}

/** extractWith on an open reader (left open); the sink records `sourcePath` as where its entries came from. */
async function extractFrom(handler: Handler, reader: Reader, start: number, limits: Partial<Limits>, sourcePath: string): Promise<Extraction> {
  const root = tempDir(`${handler.id}-out`);
  const budget = new Budget(resolveLimits(reader.size, limits));
  const sink = new DirectorySink(root, budget, { source: handler.id, path: sourcePath });
  let chunk: ChunkInfo | null = null;
  try {
    chunk = await handler.chunk(reader, start, { signal: budget.signal, maxOutput: budget.limits.maxTotalBytes });
    if (chunk && handler.extract) await handler.extract(reader, chunk, sink);
    return { chunk, sink, root };
  } catch (error) {
    return { chunk, sink, root, error };
  } finally {
    budget.dispose();
  }
}

export interface ExtractedFiles {
  chunk: ChunkInfo | null;
  entries: SinkEntry[];
  problems: Problem[];
  /** Contents of the extracted regular files by path. */
  files: Record<string, Buffer>;
}

/**
 * extractWith on `data` written to a file (read through a FileReader, as the driver does), with the extracted files
 * read back. Throws what the handler threw; a null chunk (a quiet false positive) is returned as such.
 */
export async function extractFiles(handler: Handler, data: Buffer, start = 0, limits: Partial<Limits> = {}): Promise<ExtractedFiles> {
  const input = join(tempDir(`${handler.id}-in`), 'input.bin');
  writeFileSync(input, data);
  const ex = await extractWith(handler, input, start, limits);
  if (ex.error !== undefined) throw ex.error;
  const { entries, problems } = ex.sink;
  const files: Record<string, Buffer> = {};
  for (const e of entries) if (e.kind === 'file') files[e.path] = readFileSync(join(ex.root, e.path));
  return { chunk: ex.chunk, entries, problems, files };
}

export function entry(ex: Extraction, path: string): SinkEntry | undefined {
  return ex.sink.entries.find((e) => e.path === path);
}

export interface Extracted {
  chunk: ChunkInfo;
  entries: SinkEntry[];
  problems: Problem[];
  root: string;
  /** Reads an extracted file back. */
  read(path: string): Promise<Buffer>;
  /** The entry at `path`, or throws. */
  entry(path: string): SinkEntry;
  /** Removes the output folder now (it is removed after the test file anyway). */
  cleanup(): Promise<void>;
}

/**
 * Runs the handler on an open reader (left open) with HANDLER_TEST_LIMITS unless `limits` says otherwise; throws what
 * the handler threw, or when there is no chunk at `start`.
 */
export async function runHandler(handler: Handler, reader: Reader, start = 0, limits: Partial<Limits> = {}): Promise<Extracted> {
  const ex = await extractFrom(handler, reader, start, { ...HANDLER_TEST_LIMITS, ...limits }, reader.path);
  if (ex.error !== undefined) throw ex.error;
  if (!ex.chunk) throw new Error(`${handler.id}: no chunk at ${start}`);
  const { root, sink } = ex;
  return {
    chunk: ex.chunk,
    entries: sink.entries,
    problems: sink.problems,
    root,
    read: async (path) => readFileSync(join(root, path)),
    entry(path) {
      const found = entry(ex, path);
      if (!found) throw new Error(`no entry ${path}; have ${sink.entries.map((e) => e.path).join(', ')}`);
      return found;
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** Every variant of `data` cut short at a few places: for truncation tests. */
export function truncations(data: Buffer): Buffer[] {
  const cuts = new Set([1, 4, 16, 63, 64, 65, Math.floor(data.length / 2), data.length - 1]);
  return [...cuts].filter((n) => n > 0 && n < data.length).map((n) => data.subarray(0, n));
}

/**
 * chunk() on every truncation of `data` either finds nothing or throws a FormatError, never a chunk that runs past the
 * cut. `complete` says which chunks found in a cut are still right (e.g. a cut into trailing padding).
 */
export async function expectTruncationsRefused(
  handler: Handler,
  data: Buffer,
  complete: (chunk: ChunkInfo, cut: Buffer) => boolean = () => false,
): Promise<void> {
  for (const cut of truncations(data)) {
    const result = await handler.chunk(new BufferReader(cut), 0).catch((e: unknown) => e);
    expect(result === null || result instanceof FormatError || complete(result as ChunkInfo, cut)).toBe(true);
  }
}

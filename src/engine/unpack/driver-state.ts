// The unpacking driver's state (driver.ts) and how it is shared: chunks extracted side by side each write into a
// branch with lists of their own, joined in chunk order afterwards, so that the result lists files, gaps, problems
// and formats as a one-by-one run would; and how a limit or a handler's error is recorded in a branch.

import type { FileNode, Problem, UnknownChunk } from '../types.js';
import { FormatError } from '../format-error.js';
import type { ChunkSelection } from './chunks.js';
import type { UnpackProgress } from './driver.js';
import type { FileReuse } from './file-reuse.js';
import { LimitError, type Handler } from './handler.js';
import type { Budget } from './limits.js';
import type { SignatureScanner } from './scanner.js';
import type { HeadAllowance } from './sink.js';

/** The driver's work on one image, or on one branch of it (branchOf). */
export interface State {
  outDir: string;
  budget: Budget;
  scanner: SignatureScanner;
  files: FileNode[];
  unknownChunks: UnknownChunk[];
  problems: Problem[];
  formats: Record<string, number>;
  /** Bytes of the image (depth 0) inside its accepted chunks. */
  coveredBytes: number;
  /** Shared by every branch: set once a global limit (files, time) is hit, then nothing more is extracted. */
  run: { stopped?: LimitError; lastPercent?: number };
  progress?: (p: UnpackProgress) => void;
  /** Whole contents of small extracted files (the sink's head), scanned without reopening them. */
  small: WeakMap<FileNode, Buffer>;
  /** Chunk selections the sink made while a file's bytes were in memory; the file is searched no more. */
  selections: WeakMap<FileNode, ChunkSelection>;
  /** Heads handed to the analysis (UnpackResult.heads), and what the sinks may still keep; shared by every branch. */
  heads: Map<string, Buffer>;
  headAllowance: HeadAllowance;
  /** UnpackResult.encodedRanges, shared by every branch. */
  encodedRanges: Map<string, Array<[number, number]>>;
  reuse?: FileReuse;
  onFile?: (node: FileNode) => void;
}

/**
 * The chunks of one file are extracted this many at a time (the kernel and the root filesystem of an image, say:
 * one decompressor waits on its thread while the other's files are written and searched). Each chunk's branch
 * lists its files, gaps and problems apart, and they are appended in chunk order, as a one-by-one run lists them.
 */
const CHUNK_CONCURRENCY = 2;

/** A branch of the state: the shared budget, heads and reuse, with lists of its own (appendBranches joins them). */
export function branchOf(state: State): State {
  return { ...state, files: [], unknownChunks: [], problems: [], formats: {} };
}

/** Appends the branches' files, gaps, problems and format counts to the state's, in the branches' order. */
export function appendBranches(state: State, branches: readonly State[]): void {
  for (const branch of branches) {
    state.files.push(...branch.files);
    state.unknownChunks.push(...branch.unknownChunks);
    state.problems.push(...branch.problems);
    // counted per branch too, so the formats are listed in the order a one-by-one run first meets them
    for (const [id, n] of Object.entries(branch.formats)) state.formats[id] = (state.formats[id] ?? 0) + n;
  }
}

/** Runs the works given to it at most `n` at a time, in the order they were given. */
export function limiter(n: number): <T>(work: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (work) => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await work();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

/**
 * Runs `work` on every item, CHUNK_CONCURRENCY at a time, each in a branch of the state with lists of its own;
 * then appends the branches' files, gaps, problems and format counts in item order. Every branch ends before this returns (a
 * failed one does not leave others writing into a folder the caller may be removing); the first failure is thrown.
 */
export async function inBranches<T>(state: State, items: readonly T[], work: (branch: State, item: T) => Promise<void>): Promise<void> {
  const branches = items.map(() => branchOf(state));
  const failures: unknown[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        await work(branches[i]!, items[i]!);
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CHUNK_CONCURRENCY, items.length) }, worker));
  appendBranches(state, branches);
  if (failures.length) throw failures[0];
}

export function recordExtractError(state: State, error: unknown, handler: Handler, node: FileNode, offset: number): void {
  const source = handler.id;
  if (error instanceof LimitError) {
    return recordLimit(state, error, node.path, source, offset);
  }
  if (state.budget.signal.aborted) {
    const reason: unknown = state.budget.signal.reason;
    if (reason instanceof LimitError) return recordLimit(state, reason, node.path);
    throw reason;
  }
  if (error instanceof FormatError) {
    state.problems.push({ source, path: node.path, offset, kind: 'error', message: error.message });
  } else {
    const message = error instanceof Error ? error.message : String(error);
    state.problems.push({ source, path: node.path, offset, kind: 'error', message: `handler bug: ${handler.id} at offset ${offset}: ${message}` });
  }
}

/**
 * The file count and the deadline hold for the whole image; the other limits stop only the branch that hit them
 * (a handler that lets a byte LimitError through loses the rest of its own chunk, nothing else).
 */
function isGlobal(limit: LimitError): boolean {
  return limit.limit === 'files' || limit.limit === 'time';
}

/** A global limit stops everything (recorded once); any other is recorded for its branch. */
export function recordLimit(state: State, limit: LimitError, path: string, source = 'unpack', offset?: number): void {
  if (!isGlobal(limit)) {
    state.problems.push({ source, path, offset, kind: 'limit', message: limit.message });
    return;
  }
  if (state.run.stopped) return;
  state.run.stopped = limit;
  state.problems.push({ source: 'unpack', path, kind: 'limit', message: limit.message });
}

// Test helpers shared by the firmware and boot handler tests: run a handler's chunk + extract into a temporary
// folder through a real DirectorySink and Budget, and read back what it wrote.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChunkInfo, Handler, Reader } from '../../../../src/engine/unpack/handler.js';
import { Budget, resolveLimits, type Limits } from '../../../../src/engine/unpack/limits.js';
import { DirectorySink, type SinkEntry } from '../../../../src/engine/unpack/sink.js';
import type { Problem } from '../../../../src/engine/types.js';

export interface Extracted {
  chunk: ChunkInfo;
  entries: SinkEntry[];
  problems: Problem[];
  root: string;
  /** Reads an extracted file back. */
  read(path: string): Promise<Buffer>;
  /** The entry at `path`, or throws. */
  entry(path: string): SinkEntry;
  cleanup(): Promise<void>;
}

export async function runHandler(handler: Handler, reader: Reader, start = 0, limits: Partial<Limits> = {}): Promise<Extracted> {
  const chunk = await handler.chunk(reader, start);
  if (!chunk) throw new Error(`${handler.id}: no chunk at ${start}`);
  const root = await mkdtemp(join(tmpdir(), `fs-${handler.id}-`));
  const budget = new Budget(resolveLimits(reader.size, limits));
  const sink = new DirectorySink(root, budget, { source: handler.id, path: reader.path });
  try {
    await handler.extract?.(reader, chunk, sink);
  } finally {
    budget.dispose();
  }
  return {
    chunk,
    entries: sink.entries,
    problems: sink.problems,
    root,
    read: (path) => readFile(join(root, path)),
    entry(path) {
      const found = sink.entries.find((e) => e.path === path);
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

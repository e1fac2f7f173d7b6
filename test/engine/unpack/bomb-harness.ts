// Bomb checks for container handlers: a small input whose members expand far beyond a small byte budget must stop
// at the budget with the limit recorded, keep no more than the budget on disk, and never hold the expansion in
// memory. Compression handlers have theirs in compression/compression-cases.ts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { LimitError, type Handler } from '../../../src/engine/unpack/handler.js';
import { extractWith } from './extract-harness.js';

/**
 * Makes `dir` with the bomb's contents for a filesystem or archive tool to pack: `zeros`, a sparse file of
 * `zerosMiB` MiB (holes or sparse blocks where the format has them), and `text`, `textMiB` MiB of one repeated line
 * (compressed blocks). Returns `dir`.
 */
export function bombTree(dir: string, { zerosMiB = 64, textMiB = 16 }: { zerosMiB?: number; textMiB?: number } = {}): string {
  mkdirSync(dir, { recursive: true });
  execFileSync('truncate', ['-s', `${zerosMiB}M`, join(dir, 'zeros')]);
  if (textMiB > 0) execFileSync('sh', ['-c', `yes 'firmscope bomb line' | head -c ${textMiB}M > text`], { cwd: dir });
  return dir;
}

/** Bytes of the regular files under `dir`. */
function bytesOnDisk(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesOnDisk(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/**
 * Runs `handler` on `source` (a path, so the input is not in this process's memory) with `maxTotalBytes` as the
 * byte budget and checks that the bytes limit was hit and recorded (thrown as LimitError, or reported as a
 * problem of kind 'limit' by a handler that goes on with its other entries), that the files left on disk fit
 * the budget, and that the resident memory of the process grew by less than `maxGrowth` meanwhile (sampled every
 * few milliseconds).
 */
export async function expectBombStopped(handler: Handler, source: string, maxTotalBytes: number, maxGrowth = 32 * 1024 * 1024): Promise<void> {
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  const ex = await extractWith(handler, source, 0, { maxTotalBytes }).finally(() => clearInterval(sampler));
  peak = Math.max(peak, process.memoryUsage.rss());
  const recorded = ex.error instanceof LimitError ? ex.error : ex.sink.problems.find((p) => p.kind === 'limit');
  expect(recorded?.message).toMatch(new RegExp(`extracted size limit of ${maxTotalBytes} bytes`));
  if (ex.error !== undefined) expect(ex.error).toMatchObject({ limit: 'bytes' });
  expect(bytesOnDisk(ex.root)).toBeLessThanOrEqual(maxTotalBytes);
  expect(peak - baseline).toBeLessThan(maxGrowth);
}

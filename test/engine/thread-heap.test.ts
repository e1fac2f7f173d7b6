// The engine's thread starts with a floor under its old generation's limit (src/engine/thread-heap.ts), unless
// node was started with an old-generation flag of the operator's own; threads started after it keep V8's default.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { engineHeapApplies } from '../../src/engine/thread-heap.js';
import { projectRoot } from '../support/cli-process.js';

const module = pathToFileURL(join(projectRoot, 'src', 'engine', 'thread-heap.ts')).href;

/**
 * Major collections in a thread that keeps 10 MB and churns through objects that live long enough to be promoted
 * (3 against 4 or 5 when measured): started as the engine's thread, then as a thread started after it.
 */
function majorCollections(): { engine: number; later: number } {
  const churn = `Promise.all([import('node:perf_hooks'), import('node:worker_threads')]).then(([{ PerformanceObserver, constants }, threads]) => {
    let majors = 0;
    new PerformanceObserver((l) => { for (const e of l.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++; }).observe({ entryTypes: ['gc'] });
    const live = []; for (let i = 0; i < 100000; i++) live.push({ i, s: 'x' + i });
    const ring = new Array(150000);
    for (let i = 0; i < 3000000; i++) ring[i % 150000] = { i, a: [i, i + 1], s: 'y' + i };
    setTimeout(() => threads.parentPort.postMessage(majors), 20); });`;
  const script = `
    import { Worker } from 'node:worker_threads';
    const { startEngineThread } = await import(${JSON.stringify(module)});
    const run = (start) => new Promise((done, fail) => start().once('message', done).once('error', fail));
    const engine = await run(() => startEngineThread(() => new Worker(${JSON.stringify(churn)}, { eval: true })));
    const later = await run(() => new Worker(${JSON.stringify(churn)}, { eval: true }));
    console.log(JSON.stringify({ engine, later }));`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: projectRoot, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { engine: number; later: number };
}

describe('the engine thread heap', () => {
  it('gives the engine thread fewer major collections than a thread started after it', () => {
    const { engine, later } = majorCollections();
    expect(later).toBeGreaterThan(engine);
  }, 60_000);

  it("leaves an operator's own old-generation size alone", () => {
    expect(engineHeapApplies([])).toBe(true);
    expect(engineHeapApplies(['--enable-source-maps', '--import', 'tsx'])).toBe(true);
    for (const flag of ['--max-old-space-size=300', '--initial-old-space-size=32', '--initial_heap_size=64', '--max-heap-size=512']) {
      expect(engineHeapApplies([flag])).toBe(false);
    }
  });
});

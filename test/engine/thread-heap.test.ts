// The engine's thread starts with a floor under its old generation's limit (src/engine/thread-heap.ts), unless
// node was started with an old-generation flag of the operator's own; threads started after it keep V8's default.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { transformSync } from 'esbuild';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { engineHeapApplies } from '../../src/engine/thread-heap.js';
import { projectRoot } from '../support/cli-process.js';
import { tempDir } from '../support/temp-dirs.js';

const modulePath = join(projectRoot, 'src', 'engine', 'thread-heap.ts');
const module = pathToFileURL(modulePath).href;

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

let compiled: string | undefined;
/** thread-heap.ts as a CommonJS file (esbuild, as the build's bundles are made). */
function compiledModule(): string {
  if (compiled && existsSync(compiled)) return compiled; // (tempDir's folders go with each test file)
  const dir = tempDir('firmscope-thread-heap');
  compiled = join(dir, 'thread-heap.cjs');
  writeFileSync(compiled, transformSync(readFileSync(modulePath, 'utf8'), { loader: 'ts', format: 'cjs' }).code);
  return compiled;
}

/**
 * Whether a thread started as the engine's compiles a script from a code cache made under V8's default flags, while
 * the starting thread is blocked (so its own reset, on the thread's 'online' event, has not run): `release` has
 * the thread call engineThreadStarted() first, as the command thread does.
 */
function cacheAcceptedInEngineThread(release: boolean): boolean {
  // (an ES module, as the test's process evaluates code; thread-heap.ts compiled to plain CommonJS for it)
  const thread = `
    import { workerData } from 'node:worker_threads';
    import { createRequire } from 'node:module';
    import vm from 'node:vm';
    ${release ? `createRequire(${JSON.stringify(compiledModule())})(${JSON.stringify(compiledModule())}).engineThreadStarted();` : ''}
    const script = new vm.Script(workerData.source, { cachedData: Buffer.from(workerData.cache) });
    Atomics.store(workerData.state, 0, script.cachedDataRejected ? 2 : 1);
    Atomics.notify(workerData.state, 0);`;
  const script = `
    import { Worker } from 'node:worker_threads';
    import vm from 'node:vm';
    const { startEngineThread } = await import(${JSON.stringify(module)});
    const source = 'function add(a, b) { return a + b } add(1, 2)';
    const cache = new vm.Script(source).createCachedData();
    const state = new Int32Array(new SharedArrayBuffer(4));
    const worker = startEngineThread(() => new Worker(${JSON.stringify(thread)}, { eval: true, workerData: { source, cache, state } }));
    Atomics.wait(state, 0, 0, 20000);
    console.log(JSON.stringify(state[0] === 1));
    worker.terminate();`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: projectRoot, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as boolean;
}

describe('the engine thread heap', () => {
  it('is given back by the thread itself before it compiles: a code cache made under the default is accepted', () => {
    expect(cacheAcceptedInEngineThread(false)).toBe(false); // the floor is still set: V8 rejects the cache
    expect(cacheAcceptedInEngineThread(true)).toBe(true);
  }, 60_000);

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

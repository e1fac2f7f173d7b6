// `firmscope serve` holds its main thread's young generation at its initial size and starts its scan threads with
// V8's default maximum one (src/cli/start-up-heap.ts). Each case runs in a fresh process.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/cli-process.js';

const module = pathToFileURL(join(projectRoot, 'src', 'cli', 'start-up-heap.ts')).href;

/** Young-generation capacity (MiB) of the main thread and of a worker thread, both after allocating survivors. */
function youngGenerations(nodeFlags: string[] = []): { mainBefore: number; main: number; thread: number } {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { Worker } from 'node:worker_threads';
    const { holdYoungGeneration } = await import(${JSON.stringify(module)});
    const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
    const mainBefore = young();
    holdYoungGeneration();
    const kept = [];
    for (let i = 0; i < 600000; i++) kept.push({ i, s: 'x' + i });
    const main = young();
    const thread = await new Promise((done, fail) => new Worker(
      "Promise.all([import('node:v8'), import('node:worker_threads')]).then(([v8, threads]) => {" +
      "  const kept = []; for (let i = 0; i < 600000; i++) kept.push({ i, s: 'x' + i });" +
      "  threads.parentPort.postMessage(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576); });",
      { eval: true }).once('message', done).once('error', fail));
    console.log(JSON.stringify({ mainBefore, main, thread }));`;
  const run = spawnSync(process.execPath, [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', script], { cwd: projectRoot, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { mainBefore: number; main: number; thread: number };
}

describe('holdYoungGeneration', () => {
  it('keeps the main thread at its young generation and starts worker threads at the default maximum (2 × 16 MiB)', () => {
    const { mainBefore, main, thread } = youngGenerations();
    expect(main).toBe(mainBefore);
    expect(thread).toBe(32);
  }, 60_000);

  it('leaves an operator-chosen growth factor alone', () => {
    const { mainBefore, main } = youngGenerations(['--semi-space-growth-factor=4']);
    expect(main).toBeGreaterThan(mainBefore);
  }, 60_000);
});

// Thread priorities (src/engine/thread-priority.ts): a helper thread lowers its own; the thread that runs
// `firmscope scan` puts the process's other threads behind it, and leaves those already further behind there.
// Run in a process of its own: nice values cannot be raised back without privileges, and this one runs other tests.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BEHIND_ENGINE_NICE, HELPER_THREAD_NICE } from '../../src/engine/thread-priority.js';
import { projectRoot } from '../support/cli-process.js';

const module = pathToFileURL(join(projectRoot, 'src', 'engine', 'thread-priority.ts')).href;

/** Each thread's nice value after the main thread lowered the others: its own, a helper's (at 10 before), and the rest's. */
function nicesAfterLowering(): { self: number; helper: number; others: number[]; lowered: number } {
  // a helper thread at HELPER_THREAD_NICE, as lowerThisThreadPriority leaves it (a thread here loads no TypeScript)
  const helper = `Promise.all([import('node:fs'), import('node:os'), import('node:worker_threads')]).then(([fs, os, threads]) => {
    const tid = fs.readlinkSync('/proc/thread-self').split('/').pop();
    os.setPriority(Number(tid), ${HELPER_THREAD_NICE});
    threads.parentPort.postMessage(tid); setInterval(() => {}, 1000); });`;
  const script = `
    import { readdirSync, readFileSync } from 'node:fs';
    import { Worker } from 'node:worker_threads';
    const { lowerOtherThreadsPriority } = await import(${JSON.stringify(module)});
    // field 19 of /proc/<pid>/task/<tid>/stat is the thread's nice value
    const nice = (tid) => Number(readFileSync('/proc/self/task/' + tid + '/stat', 'utf8').split(') ')[1].split(' ')[16]);
    const plain = new Worker('setInterval(() => {}, 1000)', { eval: true });
    const helper = new Worker(${JSON.stringify(helper)}, { eval: true });
    const helperTid = await new Promise((done) => helper.once('message', done));
    const lowered = lowerOtherThreadsPriority();
    const self = String(process.pid);
    const others = readdirSync('/proc/self/task').filter((tid) => tid !== self && tid !== helperTid).map(nice);
    console.log(JSON.stringify({ self: nice(self), helper: nice(helperTid), others, lowered }));
    plain.terminate(); helper.terminate();`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: projectRoot, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { self: number; helper: number; others: number[]; lowered: number };
}

describe.runIf(process.platform === 'linux')('thread priorities', () => {
  it('puts the other threads behind the calling one, and a helper already further behind stays there', () => {
    const { self, helper, others, lowered } = nicesAfterLowering();
    expect(self).toBe(0);
    expect(helper).toBe(HELPER_THREAD_NICE);
    // the plain worker, libuv's pool and V8's helper threads
    expect(others.length).toBeGreaterThanOrEqual(2);
    expect(others.every((n) => n === BEHIND_ENGINE_NICE)).toBe(true);
    expect(lowered).toBe(others.length);
  }, 60_000);
});

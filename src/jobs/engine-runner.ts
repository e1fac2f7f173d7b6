// Runs scans in scan-thread worker threads and turns each into a promise: progress callbacks, abort by signal (a
// polite abort first, then terminate), and a clear error when the thread dies. A thread whose scan succeeded is
// kept for the next scan on the same database (warm code, connection and parsed vulnerability records); one
// whose scan failed or was cancelled is ended, so no scan inherits the state of a broken one. Idle threads do
// not keep the process alive and end after IDLE_MS.
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../engine/module-worker.js';
import { startEngineThread } from '../engine/thread-heap.js';
import type { ScanResult } from '../engine/types.js';
import type { ScanThreadConfig, ScanThreadInput, ScanThreadMessage, ScanThreadRequest } from './scan-thread.js';

/** Grace period for the engine to stop by its own abort signal before the thread is terminated. */
const ABORT_GRACE_MS = 5000;
/** How long an idle thread waits for another scan. */
const IDLE_MS = 5 * 60_000;
/** Scans a thread runs before it is replaced (bounds what a long-lived thread can accumulate). */
const SCANS_PER_THREAD = 100;

export class ScanAbortedError extends Error {}

interface ScanThread {
  worker: Worker;
  key: string;
  scans: number;
  idleTimer?: NodeJS.Timeout;
}

/** Idle threads by database (the key is its configuration). */
const idle = new Map<string, ScanThread[]>();
/**
 * Threads being terminated (an aborted scan's): closeScanThreads waits for them, so a process that exits after a
 * SIGTERM drain never tears down a thread that a native add-on is still running in (which can kill the process).
 */
const terminating = new Set<Promise<unknown>>();

function terminate(worker: Worker): void {
  const ended = worker.terminate().catch(() => undefined);
  terminating.add(ended);
  void ended.finally(() => terminating.delete(ended));
}
let started = 0;

/** Threads started so far and threads idle now (for tests and diagnostics). */
export function scanThreadStats(): { started: number; idle: number } {
  return { started, idle: [...idle.values()].reduce((n, list) => n + list.length, 0) };
}

export function runEngineInThread(
  input: ScanThreadInput & ScanThreadConfig, options: { signal: AbortSignal; onProgress?: (p: { phase: string; percent: number }) => void },
): Promise<ScanResult> {
  const { database, ...scan } = input;
  const thread = takeThread(database);
  const { worker } = thread;
  worker.ref();
  thread.scans++;
  return new Promise<ScanResult>((resolve, reject) => {
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const settle = (keep: boolean, fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(killTimer);
      options.signal.removeEventListener('abort', onAbort);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (keep && !options.signal.aborted) releaseThread(thread);
      else terminate(worker);
      fn();
    };
    const onAbort = () => {
      worker.postMessage({ type: 'abort' } satisfies ScanThreadRequest);
      killTimer = setTimeout(() => terminate(worker), ABORT_GRACE_MS);
    };
    const onMessage = (message: ScanThreadMessage) => {
      if (message.type === 'progress') options.onProgress?.({ phase: message.phase, percent: message.percent });
      else if (message.type === 'result') settle(true, () => resolve(message.result as ScanResult));
      else settle(false, () => reject(options.signal.aborted ? new ScanAbortedError(message.message) : threadError(message)));
    };
    const onError = (error: Error) => settle(false, () => reject(options.signal.aborted ? new ScanAbortedError(error.message) : error));
    const onExit = (code: number) =>
      settle(false, () =>
        reject(options.signal.aborted ? new ScanAbortedError('the scan was stopped') : new Error(`the analysis thread stopped unexpectedly (exit code ${code})`)),
      );
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });
    worker.postMessage({ type: 'scan', input: scan } satisfies ScanThreadRequest);
  });
}

/** The thread's error with its name kept (callers tell the engine's trusted errors by name, see engine/errors.ts). */
function threadError(message: { message: string; name: string }): Error {
  const error = new Error(message.message);
  error.name = message.name;
  return error;
}

/** Ends the idle threads of a database, or all (their databases closed); busy ones end with their scans. */
export async function closeScanThreads(database?: ScanThreadConfig['database']): Promise<void> {
  const keys = database ? [JSON.stringify(database)] : [...idle.keys()];
  const threads = keys.flatMap((key) => idle.get(key) ?? []);
  for (const key of keys) idle.delete(key);
  await Promise.all([...threads.map((thread) => endThread(thread)), ...terminating]);
}

function takeThread(database: ScanThreadConfig['database']): ScanThread {
  const key = JSON.stringify(database);
  const thread = idle.get(key)?.pop();
  if (thread) {
    clearTimeout(thread.idleTimer);
    return thread;
  }
  started++;
  const created: ScanThread = { worker: startWorker({ database }), key, scans: 0 };
  // a thread that dies while idle (out of memory, say) is simply not reused
  created.worker.once('exit', () => forgetIdle(created));
  return created;
}

function forgetIdle(thread: ScanThread): void {
  const list = idle.get(thread.key)?.filter((t) => t !== thread) ?? [];
  if (list.length > 0) idle.set(thread.key, list);
  else idle.delete(thread.key);
}

function releaseThread(thread: ScanThread): void {
  if (thread.scans >= SCANS_PER_THREAD) {
    void endThread(thread);
    return;
  }
  thread.worker.unref();
  idle.set(thread.key, [...(idle.get(thread.key) ?? []), thread]);
  thread.idleTimer = setTimeout(() => {
    forgetIdle(thread);
    void endThread(thread);
  }, IDLE_MS).unref();
}

/** Asks the thread to close its database and exit; terminates it if it has not within the grace period. */
async function endThread(thread: ScanThread): Promise<void> {
  clearTimeout(thread.idleTimer);
  const exited = new Promise<void>((resolve) => thread.worker.once('exit', () => resolve()));
  // An idle thread is unref'd: ref'd again (and the grace timer with it) so that the process waits for the thread
  // to end. Otherwise a caller awaiting this with nothing else pending saw Node exit under it (exit code 13,
  // an unsettled top-level await), tearing the thread down mid-close.
  thread.worker.ref();
  thread.worker.postMessage({ type: 'close' } satisfies ScanThreadRequest);
  const timer = setTimeout(() => terminate(thread.worker), ABORT_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

function startWorker(config: ScanThreadConfig): Worker {
  return startEngineThread(() => startModuleWorker(import.meta.url, 'scan-thread', { workerData: config }));
}

// Starts scan-thread in a worker thread and turns it into a promise: progress callbacks, abort by signal
// (a polite abort first, then terminate), and a clear error when the thread dies.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ScanResult } from '../engine/types.js';
import type { ScanThreadInput, ScanThreadMessage } from './scan-thread.js';

/** Grace period for the engine to stop by its own abort signal before the thread is terminated. */
const ABORT_GRACE_MS = 5000;

export class ScanAbortedError extends Error {}

export function runEngineInThread(
  input: ScanThreadInput, options: { signal: AbortSignal; onProgress?: (p: { phase: string; percent: number }) => void },
): Promise<ScanResult> {
  // Compiled code runs scan-thread.js; tests run the TypeScript source through tsx.
  const source = import.meta.url.endsWith('.ts');
  const url = new URL(`./scan-thread.${source ? 'ts' : 'js'}`, import.meta.url);
  const worker = source
    ? new Worker(tsxBootstrap(url), { eval: true, workerData: input })
    : new Worker(url, { workerData: input });
  return new Promise<ScanResult>((resolve, reject) => {
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(killTimer);
      options.signal.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      worker.postMessage({ type: 'abort' });
      killTimer = setTimeout(() => {
        void worker.terminate();
      }, ABORT_GRACE_MS);
    };
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });

    worker.on('message', (message: ScanThreadMessage) => {
      if (message.type === 'progress') options.onProgress?.({ phase: message.phase, percent: message.percent });
      else if (message.type === 'result') settle(() => resolve(message.result as ScanResult));
      else if (message.type === 'error') {
        settle(() => reject(options.signal.aborted ? new ScanAbortedError(message.message) : new Error(message.message)));
      }
      if (message.type !== 'progress') void worker.terminate();
    });
    worker.on('error', (error) => settle(() => reject(options.signal.aborted ? new ScanAbortedError(error.message) : error)));
    worker.on('exit', (code) =>
      settle(() =>
        reject(options.signal.aborted ? new ScanAbortedError('the scan was stopped') : new Error(`the analysis thread stopped unexpectedly (exit code ${code})`)),
      ),
    );
  });
}

/** Worker code that registers tsx's loader, then imports the TypeScript thread module (tests only). */
function tsxBootstrap(url: URL): string {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  return `(async () => { const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(url.href)}); })()`;
}

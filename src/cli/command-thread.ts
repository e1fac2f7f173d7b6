// `firmscope scan` and `unpack` of a large image run the whole command again in a worker thread: V8 sizes a heap
// when it creates it, so the engine's heap (engine/thread-heap.ts) can only be had by a thread started after it is
// set. On the 64 MB benchmark image that saved 0.2 to 1.3 s of an 8 s scan (README). A small image gains nothing
// from it and would pay the thread's start and the larger heap's page faults (0.02 to 0.2 s more for the 3.9 MB
// OpenWrt image), so it stays on the main thread. The thread prints through the process's standard output and
// error (Node forwards them, all of it before the thread exits) and its exit code becomes the process's.
import { statSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { startModuleWorker } from '../engine/module-worker.js';
import { startEngineThread } from '../engine/thread-heap.js';

/** Images from this size on are unpacked and analysed in a thread with the engine's heap. */
export const ENGINE_THREAD_MIN_BYTES = 16 * 1024 * 1024;

/** The command line `firmscope` was started with (main.ts); commands run any other way (the tests) stay where they are. */
let commandLine: readonly string[] | undefined;

export function setCommandLine(args: readonly string[]): void {
  commandLine = args;
}

/**
 * On the main thread of `firmscope`, for an image of ENGINE_THREAD_MIN_BYTES or more: runs this command line again
 * in a thread with the engine's heap, sets the process's exit code from it, and returns true (the caller stops).
 * Otherwise (a small image, already in that thread, or a command not run by main.ts) returns false and the caller
 * runs the command itself.
 */
export async function ranInEngineThread(image: string): Promise<boolean> {
  if (!commandLine || !isMainThread || statSync(image).size < ENGINE_THREAD_MIN_BYTES) return false;
  process.exitCode = await runCommandInThread(commandLine);
  return true;
}

/** Runs `main` (cli/main.ts) in a worker thread with the engine's heap and these arguments; resolves to its exit code. */
function runCommandInThread(args: readonly string[]): Promise<number> {
  if (process.env.FIRMSCOPE_DEBUG) process.stderr.write('firmscope: the command runs in a thread with the engine heap\n');
  return new Promise((resolve) => {
    const worker = startEngineThread(() => startModuleWorker(import.meta.url, 'main', { argv: [...args] }));
    let failure: Error | undefined;
    worker.once('error', (error: Error) => {
      failure = error;
    });
    worker.once('exit', (code) => {
      // main.ts reports the command's own errors; this is an uncaught one, or a thread that could not start
      if (failure) process.stderr.write(`firmscope: ${failure.message}\n`);
      resolve(failure && code === 0 ? 1 : code);
    });
  });
}

// The heap of the thread that runs the engine (issue #15). Unpacking and analysing make a stream of short-lived
// buffers (decoded blocks, file contents) over a small long-lived heap of about 10 MB. V8 sets the old
// generation's limit a little above that small heap, and it starts incremental marking as soon as the room left
// under the limit is less than the young generation's capacity (2 × 16 MiB once grown): with a 10 MB heap that is
// almost always, so unpacking the 64 MB benchmark image ran about 40 major collections, whose concurrent marking
// took a second of CPU from the decoders. A floor of 128 MiB under that limit leaves the room: about 10.
// V8 reads the floor (a process-wide flag) when a thread creates its isolate, so it is set while the engine's
// thread starts and taken back once that thread runs: the thread the engine starts itself (the rule scan) holds
// one file at a time and keeps V8's default, which costs less memory.
import { setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';

/** The floor of the old generation's limit (V8's --initial-old-space-size), in MiB. */
export const ENGINE_OLD_SPACE_FLOOR_MB = 128;

/** Node flags that size the old generation: an operator who passes one keeps their own heap. */
const OPERATOR_FLAG = /^--(initial[-_]old[-_]space[-_]size|initial[-_]heap[-_]size|max[-_]old[-_]space[-_]size|max[-_]heap[-_]size)\b/;

/** Whether threads started now get the engine's floor (false: node was started with an old-generation flag of its own). */
export function engineHeapApplies(execArgv: readonly string[] = process.execArgv): boolean {
  return !execArgv.some((arg) => OPERATOR_FLAG.test(arg));
}

/**
 * Starts a thread that runs the engine with the engine's old-generation floor. The flag is set for the thread's
 * start and reset once it is online (or failed): two engine threads starting at once may see it reset early, which
 * costs one of them collections, never correctness.
 */
export function startEngineThread(start: () => Worker): Worker {
  if (!engineHeapApplies()) return start();
  setFlagsFromString(`--initial-old-space-size=${ENGINE_OLD_SPACE_FLOOR_MB}`);
  let worker: Worker;
  try {
    worker = start();
  } catch (error) {
    reset();
    throw error;
  }
  worker.once('online', reset).once('error', reset).once('exit', reset);
  return worker;
}

function reset(): void {
  setFlagsFromString('--initial-old-space-size=0');
}

/**
 * Called first thing in a thread startEngineThread started: its heap is sized by now, so the floor goes back at
 * once instead of when the starting thread hears the thread is online. V8 rejects a code cache made under other
 * flags, and with the floor still set the engine's bundle was compiled from source in that thread (its code cache,
 * scripts/bundle-commands.mjs, is made under the default).
 */
export function engineThreadStarted(): void {
  if (engineHeapApplies()) reset();
}

// The heap of the threads that run the engine (issue #15). Unpacking and analysing make a stream of short-lived
// buffers (decoded blocks, file contents) over a small long-lived heap of about 10 MB. V8 sets the old
// generation's limit a little above that small heap, and it starts incremental marking as soon as the room left
// under the limit is less than the young generation's capacity (2 × 16 MiB once grown): with a 10 MB heap that is
// almost always, so unpacking the 64 MB benchmark image ran about 40 major collections, whose concurrent marking
// took a second of CPU from the decoders. A floor of 128 MiB under that limit leaves the room: about 10.
// V8 reads the floor when it creates an isolate, so it is set before the engine's thread starts; the thread that
// sets it keeps its own heap as it was.
import { setFlagsFromString } from 'node:v8';

/** The floor of the old generation's limit (V8's --initial-old-space-size), in MiB. */
export const ENGINE_OLD_SPACE_FLOOR_MB = 128;

/** Node flags that size the old generation: an operator who passes one keeps their own heap. */
const OPERATOR_FLAG = /^--(initial[-_]old[-_]space[-_]size|initial[-_]heap[-_]size|max[-_]old[-_]space[-_]size|max[-_]heap[-_]size)\b/;

/**
 * Gives every isolate created from now on (worker threads) the engine's old-generation floor, unless node was
 * started with a flag of its own for the old generation (then false). Process-wide and lasting: call it before
 * starting the threads that run the engine.
 */
export function useEngineThreadHeap(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => OPERATOR_FLAG.test(arg))) return false;
  setFlagsFromString(`--initial-old-space-size=${ENGINE_OLD_SPACE_FLOOR_MB}`);
  return true;
}

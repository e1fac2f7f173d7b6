// The API process keeps a small young generation. Loading the service's ~1,800 modules makes objects that all live
// on (compiled code, module records, schemas), and V8 doubles the young generation each time that much survives a
// scavenge: the start alone grew it to its maximum (2 × 16 MiB committed), which the idle process then kept for
// good, and the survivors of every later request grew it back the same way. A larger young generation also lets
// more dead upload chunks (socket buffers, freed only when a scavenge finds their wrappers dead) pile up while a
// large upload streams. So `serve` holds the main thread's young generation at its initial size (1 MiB
// semi-spaces; survivors are promoted a little sooner), and gives the scan threads it starts later V8's default
// maximum (16 MiB semi-spaces, what an analysis grew to anyway) from their start, since the growth setting is
// process-wide and read whenever V8 considers growing. An operator who passes either flag on node's command line
// keeps their own settings (NODE_OPTIONS refuses these flags).
import { setFlagsFromString } from 'node:v8';

/** V8's maximum semi-space on 64-bit Node 20 to 24 (`new_space` reaches 2 × 16 MiB), in MiB. */
const SCAN_THREAD_SEMI_SPACE_MB = 16;

function operatorChose(): boolean {
  return process.execArgv.some((arg) => /^--(semi[-_]space[-_]growth[-_]factor|min[-_]semi[-_]space[-_]size)\b/.test(arg));
}

/**
 * Holds this thread's young generation at its initial size for the life of the process, and makes isolates created
 * from now on (worker threads) start with the default maximum one. Call before loading the service's modules.
 */
export function holdYoungGeneration(): void {
  if (operatorChose()) return;
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString(`--min-semi-space-size=${SCAN_THREAD_SEMI_SPACE_MB}`);
}

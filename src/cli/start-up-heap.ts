// A small young generation while a long-running command starts. Loading the service's ~1,800 modules makes
// objects that all live on (compiled code, module records, schemas); V8 doubles the young generation each time
// that much survives a scavenge, so the start alone grew it to its maximum (2 × 16 MiB committed) and the idle
// API process kept the 32 MiB for good. With growth held at 1× during the start, the young generation stays at its
// initial size (the survivors are promoted a little sooner, which they would be anyway); growth is restored once
// the service is up, so a process that later allocates hard (storing a large result) still gets a large one.
// The flag is process-wide and read when V8 decides to grow, so scan threads (started after) are unaffected.
// An operator who sets --semi-space-growth-factor (NODE_OPTIONS or the command line) keeps their value.
import { setFlagsFromString } from 'node:v8';

/** V8's default growth factor of the young generation (`node --v8-options`, Node 20 to 24). */
const V8_DEFAULT_GROWTH = 2;

function operatorChose(): boolean {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((arg) => /^--semi[-_]space[-_]growth[-_]factor\b/.test(arg));
}

/** Runs `start` with the young generation held at its initial size, then lets it grow again. */
export async function withSmallYoungGeneration<T>(start: () => Promise<T>): Promise<T> {
  if (operatorChose()) return start();
  setFlagsFromString('--semi-space-growth-factor=1');
  try {
    return await start();
  } finally {
    setFlagsFromString(`--semi-space-growth-factor=${V8_DEFAULT_GROWTH}`);
  }
}

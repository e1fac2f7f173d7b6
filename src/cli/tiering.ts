// V8 optimises a function with Turbofan once it has run enough bytecode (its "interrupt budget", 66 KiB by default
// in Node 20). An offline scan is a short process that runs hundreds of functions a little and a few a lot: on the
// 3.9 MB OpenWrt image V8's compiler threads spent 0.6 s of the scan's 2.5 s of CPU (perf, 2026-11-30), on two
// cores that the engine's thread, the decoders and the rule thread already fill. With four times the budget only
// the functions that keep running are optimised; the hot loops (the chunk search, the crypto scanner) still are,
// a little later. Set before the engine loads; process-wide, so the engine's threads get it too. An operator who
// passes the flag on node's command line keeps theirs.
import { setFlagsFromString } from 'node:v8';

/** Bytecode run before a function is considered for optimisation: four times V8's default. */
export const OFFLINE_INTERRUPT_BUDGET = 4 * 66 * 1024;

export function delayOptimization(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => /^--interrupt[-_]budget\b/.test(arg))) return false;
  setFlagsFromString(`--interrupt-budget=${OFFLINE_INTERRUPT_BUDGET}`);
  return true;
}

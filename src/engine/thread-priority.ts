// A helper thread's place behind the engine's own threads. The rule scan thread starts on files while the image is
// still being unpacked (malware.analyzer.ts, Analyzer.early); at the process's priority it took its share of the two
// cores from the decoders and the engine's thread, and the unpacking slowed by about as much as the scan gained. At
// a lower priority it runs on what they leave idle. Linux gives each thread a nice value of its own
// (setpriority(2) on a thread id); elsewhere the thread keeps the process's priority.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The nice value of a helper thread: CFS gives it about a tenth of a core's share while nice-0 threads want the core. */
export const HELPER_THREAD_NICE = 10;

/** Lowers the calling thread's priority to `nice` (Linux); does nothing where a thread has no priority of its own. */
export function lowerThisThreadPriority(nice = HELPER_THREAD_NICE): void {
  if (process.platform !== 'linux') return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // no /proc, or a sandbox that refuses it: the thread keeps the process's priority
  }
}

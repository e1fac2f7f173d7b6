// A helper thread's place behind the engine's own threads. The rule scan thread starts on files while the image is
// still being unpacked (malware.analyzer.ts, Analyzer.early); at the process's priority it took its share of the two
// cores from the decoders and the engine's thread, and the unpacking slowed by about as much as the scan gained. At
// a lower priority it runs on what they leave idle. Linux gives each thread a nice value of its own
// (setpriority(2) on a thread id); elsewhere the thread keeps the process's priority.
import { readdirSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The nice value of a helper thread: CFS gives it about a tenth of a core's share while nice-0 threads want the core. */
export const HELPER_THREAD_NICE = 10;

/**
 * The nice value the other threads of `firmscope scan` take behind its engine thread (lowerOtherThreadsPriority):
 * about a third of a core's share while that thread wants the core, and the rule and crypto threads stay behind them.
 */
export const BEHIND_ENGINE_NICE = 5;

/** The calling thread's id (Linux), or undefined. */
function thisThreadId(): number | undefined {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  return Number.isInteger(tid) && tid > 0 ? tid : undefined;
}

/** Lowers the calling thread's priority to `nice` (Linux); does nothing where a thread has no priority of its own. */
export function lowerThisThreadPriority(nice = HELPER_THREAD_NICE): void {
  if (process.platform !== 'linux') return;
  try {
    const tid = thisThreadId();
    if (tid !== undefined) setPriority(tid, nice);
  } catch {
    // no /proc, or a sandbox that refuses it: the thread keeps the process's priority
  }
}

/**
 * Puts every other thread of the process at nice `nice` or lower priority (Linux; a thread already further behind
 * stays there). For a process that runs one scan and nothing else, from the thread that runs it: that thread hands
 * each SquashFS block to a decoder thread of libuv's pool and wakes it, and the woken decoder took its core from
 * it (the engine's thread waited ~85 us per call, 0.18 s of the bench image's next version, whose analysis and
 * placing of files are the engine thread's alone). Never in the service, whose threads answer requests. Returns
 * the threads lowered.
 */
export function lowerOtherThreadsPriority(nice = BEHIND_ENGINE_NICE): number {
  if (process.platform !== 'linux') return 0;
  let lowered = 0;
  try {
    const self = thisThreadId();
    for (const name of readdirSync('/proc/self/task')) {
      const tid = Number(name);
      if (tid === self) continue;
      try {
        if (getPriority(tid) < nice) {
          setPriority(tid, nice);
          lowered++;
        }
      } catch {
        // the thread has ended meanwhile
      }
    }
  } catch {
    // no /proc, or a sandbox that refuses it: the threads keep their priority
  }
  return lowered;
}

// A scan's live progress in the database: at most one write per interval, and the latest value is never lost. An
// update that falls inside the interval is written when the interval ends; dropping it instead let the dashboard
// show a scan's first phase ('hash 0%') for its whole run whenever the later updates all came within a second of it.
export interface ScanProgress {
  phase: string;
  percent: number;
}

export interface ProgressWriter {
  update(progress: ScanProgress): void;
  /** No more writes (the scan ended); an update still waiting is dropped. */
  stop(): void;
}

export function progressWriter(write: (progress: ScanProgress) => Promise<unknown>, intervalMs = 1000): ProgressWriter {
  let lastWrite = -Infinity;
  let waiting: ScanProgress | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const flush = () => {
    timer = undefined;
    if (stopped || !waiting) return;
    const progress = waiting;
    waiting = undefined;
    lastWrite = Date.now();
    // progress is advisory: a failed write is not the scan's failure
    void write(progress).catch(() => undefined);
  };
  return {
    update(progress) {
      if (stopped) return;
      waiting = progress;
      if (timer) return;
      const wait = lastWrite + intervalMs - Date.now();
      if (wait <= 0) flush();
      else timer = setTimeout(flush, wait);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

// Wakes idle workers the moment a job is queued instead of at their next poll. In one process: listeners called
// once the job's transaction has committed. Across processes (PostgreSQL): the enqueue sends NOTIFY on
// JOB_CHANNEL inside its transaction (delivered on commit), and each worker LISTENs (database.ts `listen`).
// Polling stays as the fallback for SQLite across processes and for a lost notification.

/** The PostgreSQL channel a queued job is announced on (its payload is the job's kind). */
export const JOB_CHANNEL = 'firmscope_jobs';

const listeners = new Set<(kind: string) => void>();

/** Calls `listener` with the job's kind whenever a job is queued in this process; returns the unsubscribe function. */
export function onJobQueued(listener: (kind: string) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Announces a committed job of `kind` to this process's workers. */
export function announceJobQueued(kind: string): void {
  for (const listener of listeners) listener(kind);
}

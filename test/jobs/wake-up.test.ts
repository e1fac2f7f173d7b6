// A queued job starts at once, not at the worker's next poll: in-process after the enqueuing transaction commits,
// and across processes through PostgreSQL's LISTEN/NOTIFY.
import { expect, it } from 'vitest';
import { JobWorker } from '../../src/jobs/worker.js';
import { openDatabase } from '../../src/store/database.js';
import { JOB_CHANNEL } from '../../src/store/job-signal.js';
import { createRepositories } from '../../src/store/repositories.js';
import { describeEachDatabase } from '../support/databases.js';
import { waitFor } from '../support/server.js';

/** Far longer than the test waits: only a wake-up can start the job in time. */
const POLL_MS = 60_000;

describeEachDatabase('job wake-up', (get) => {
  it('starts a job queued in a transaction as soon as it commits, while the worker sleeps until its next poll', async () => {
    const database = get();
    const repos = createRepositories(database.db, database.dialect);
    const started: string[] = [];
    const worker = new JobWorker({ jobs: repos.jobs, handlers: { wake: async (job) => (started.push(job.id), 'done') }, pollMs: POLL_MS });
    worker.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 200)); // its first claim found nothing: asleep now
      const queuedAt = Date.now();
      const job = await repos.transaction(async (tx) => {
        const queued = await tx.jobs.enqueue({ kind: 'wake' });
        // not yet committed: a worker woken now would find nothing and sleep for a minute
        await new Promise((resolve) => setTimeout(resolve, 100));
        return queued;
      });
      await waitFor(async () => (started.includes(job.id) ? true : undefined), 5000, 10);
      expect(Date.now() - queuedAt).toBeLessThan(5000);
    } finally {
      await worker.stop();
    }
  });

  it('announces a committed job to other processes with NOTIFY (PostgreSQL)', async () => {
    const database = get();
    if (database.dialect !== 'postgres') {
      expect(database.listen).toBeUndefined(); // SQLite has no LISTEN: other processes poll
      return;
    }
    // another process's view of the same database: its own pool and listening connection
    const other = await openDatabase({ url: database.url, dataDir: database.dataDir });
    // the channel is the database's, which the other test files' schemas share: only this job's kind counts
    const kind = `elsewhere-${process.pid}-${Date.now()}`;
    const heard: number[] = [];
    const stop = await other.listen!(JOB_CHANNEL, (payload) => {
      if (payload === kind) heard.push(Date.now());
    });
    try {
      const repos = createRepositories(database.db, database.dialect);
      await repos.transaction(async (tx) => {
        await tx.jobs.enqueue({ kind });
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(heard).toEqual([]); // NOTIFY is delivered on commit, not before
      });
      await waitFor(async () => (heard.length > 0 ? true : undefined), 5000, 10);
    } finally {
      await stop();
      await other.close();
    }
  });
});

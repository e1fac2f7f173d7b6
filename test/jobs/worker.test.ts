// The worker loop with test handlers on a real job table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobWorker, type JobHandler } from '../../src/jobs/worker.js';
import { JobRepository } from '../../src/store/job.repository.js';
import { openTestDatabase, type TestDatabase } from '../support/databases.js';
import { waitFor } from '../support/server.js';

describe('JobWorker', () => {
  let database: TestDatabase;
  let jobs: JobRepository;
  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
    jobs = new JobRepository(database.db, database.dialect);
  });
  afterAll(async () => database.close());

  const worker = (handlers: Record<string, JobHandler>) => new JobWorker({ jobs, handlers, pollMs: 20, leaseMs: 2000, heartbeatMs: 50 });
  const settled = (id: string) => waitFor(async () => {
    const job = await jobs.get(id);
    return job && job.status !== 'queued' && job.status !== 'running' ? job : undefined;
  }, 10_000, 20);

  it('runs a job and records its outcome', async () => {
    const seen: string[] = [];
    const w = worker({ a: async (job) => (seen.push(job.id), 'done') });
    const job = await jobs.enqueue({ kind: 'a' });
    w.start();
    expect((await settled(job.id)).status).toBe('done');
    await w.stop();
    expect(seen).toEqual([job.id]);
  });

  it('retries a crashing handler, then fails the job with the error', async () => {
    let calls = 0;
    const w = worker({ b: async () => {
      calls++;
      throw new Error('disk full');
    } });
    const job = await jobs.enqueue({ kind: 'b', maxAttempts: 1 });
    w.start();
    const done = await settled(job.id);
    await w.stop();
    expect(done.status).toBe('failed');
    expect(done.lastError).toBe('disk full');
    expect(calls).toBe(1);
  });

  it('aborts the handler when cancellation is requested', async () => {
    let aborted = false;
    const w = worker({ c: (_job, signal) => new Promise((resolve) => signal.addEventListener('abort', () => {
      aborted = true;
      resolve('cancelled');
    }, { once: true })) });
    const job = await jobs.enqueue({ kind: 'c', scanId: 'S-c' });
    w.start();
    await waitFor(async () => ((await jobs.get(job.id))?.status === 'running' ? true : undefined), 5000, 20);
    await jobs.requestCancel('S-c');
    expect((await settled(job.id)).status).toBe('cancelled');
    expect(aborted).toBe(true);
    await w.stop();
  });

  it('hands a running job back to the queue when stopped', async () => {
    const w = worker({ d: (_job, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('done'), { once: true })) });
    const job = await jobs.enqueue({ kind: 'd' });
    w.start();
    await waitFor(async () => ((await jobs.get(job.id))?.status === 'running' ? true : undefined), 5000, 20);
    await w.stop();
    const after = await jobs.get(job.id);
    expect(after?.status).toBe('queued');
    expect(after?.lastError).toMatch(/stopped before finishing/);
  });
});

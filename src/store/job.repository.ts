// The durable job queue. A worker claims a due job (or one whose lease expired: its worker died) with one
// atomic UPDATE, extends the lease by heartbeats while it works, and finishes it. PostgreSQL claims with
// FOR UPDATE SKIP LOCKED so concurrent workers never wait on each other; SQLite's single-statement UPDATE
// is atomic under its database write lock.
import { sql, type Kysely } from 'kysely';
import { newId, nowIso } from '../ids.js';
import { announceJobQueued, JOB_CHANNEL } from './job-signal.js';
import type { Database, JobStatus } from './schema.js';

export interface Job {
  id: string;
  kind: string;
  scanId: string | null;
  payload: Record<string, unknown>;
  status: JobStatus;
  attempts: number;
  maxAttempts: number;
  leaseOwner: string | null;
  cancelRequested: boolean;
  lastError: string | null;
}

const toJob = (r: Database['jobs']): Job => ({
  id: r.id, kind: r.kind, scanId: r.scan_id, payload: JSON.parse(r.payload) as Record<string, unknown>, status: r.status,
  attempts: Number(r.attempts), maxAttempts: Number(r.max_attempts), leaseOwner: r.lease_owner,
  cancelRequested: Number(r.cancel_requested) === 1, lastError: r.last_error,
});

const later = (ms: number): string => new Date(Date.now() + ms).toISOString();

export class JobRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
    /** Runs a callback once the current transaction commits (at once outside one): see repositories.ts. */
    private readonly afterCommit: (fn: () => void) => void = (fn) => fn(),
  ) {}

  /** Queues a job, due now or at `runAt` (ISO time: a retry later). */
  async enqueue(input: { kind: string; scanId?: string; payload?: Record<string, unknown>; maxAttempts?: number; runAt?: string }): Promise<Job> {
    const now = nowIso();
    const row: Database['jobs'] = {
      id: newId(), kind: input.kind, scan_id: input.scanId ?? null, payload: JSON.stringify(input.payload ?? {}), status: 'queued',
      attempts: 0, max_attempts: input.maxAttempts ?? 3, run_time: input.runAt ?? now, lease_owner: null, lease_expire_time: null,
      cancel_requested: 0, last_error: null, create_time: now, update_time: now,
    };
    await this.db.insertInto('jobs').values(row).execute();
    // Idle workers start it now: NOTIFY reaches other processes on commit; this process's are told after it.
    if (this.dialect === 'postgres') await sql`select pg_notify(${JOB_CHANNEL}, ${row.kind})`.execute(this.db);
    this.afterCommit(() => announceJobQueued(row.kind));
    return toJob(row);
  }

  async get(id: string): Promise<Job | undefined> {
    const row = await this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toJob(row);
  }

  async forScan(scanId: string): Promise<Job[]> {
    const rows = await this.db.selectFrom('jobs').selectAll().where('scan_id', '=', scanId).orderBy('create_time').execute();
    return rows.map(toJob);
  }

  /** Jobs by kind and status (the queue depth of /metrics). */
  async countByStatus(): Promise<Array<{ kind: string; status: JobStatus; count: number }>> {
    const rows = await this.db.selectFrom('jobs').select(['kind', 'status', (eb) => eb.fn.countAll().as('count')]).groupBy(['kind', 'status']).execute();
    return rows.map((r) => ({ kind: r.kind, status: r.status, count: Number(r.count) }));
  }

  /** Claims one due job of the given kinds for `owner`, or returns undefined when none is due. */
  async claim(owner: string, kinds: string[], leaseMs: number): Promise<Job | undefined> {
    const now = nowIso();
    let candidate = this.db
      .selectFrom('jobs')
      .select('id')
      .where('kind', 'in', kinds)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'queued'), eb('run_time', '<=', now)]),
          eb.and([eb('status', '=', 'running'), eb('lease_expire_time', '<', now), eb('attempts', '<', eb.ref('max_attempts'))]),
        ]),
      )
      .orderBy('run_time')
      .orderBy('id')
      .limit(1);
    if (this.dialect === 'postgres') candidate = candidate.forUpdate().skipLocked();
    const row = await this.db
      .updateTable('jobs')
      .set({ status: 'running', lease_owner: owner, lease_expire_time: later(leaseMs), attempts: sql`attempts + 1`, update_time: now })
      .where('id', 'in', candidate)
      .returningAll()
      .executeTakeFirst();
    return row && toJob(row);
  }

  /** Extends the lease; `owned` is false when another worker took the job over (this one must stop). */
  async heartbeat(id: string, owner: string, leaseMs: number): Promise<{ owned: boolean; cancelRequested: boolean }> {
    const row = await this.db
      .updateTable('jobs')
      .set({ lease_expire_time: later(leaseMs), update_time: nowIso() })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'running')
      .returning(['cancel_requested'])
      .executeTakeFirst();
    return { owned: row !== undefined, cancelRequested: row !== undefined && Number(row.cancel_requested) === 1 };
  }

  /** Ends the job when `owner` still holds it. */
  async finish(id: string, owner: string, status: 'done' | 'failed' | 'cancelled', error?: string): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({ status, lease_owner: null, lease_expire_time: null, last_error: error ?? null, update_time: nowIso() })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Puts the job back in the queue after an unexpected error, when it has attempts left. */
  async retry(id: string, owner: string, error: string, delayMs: number): Promise<boolean> {
    const result = await this.db
      .updateTable('jobs')
      .set({ status: 'queued', lease_owner: null, lease_expire_time: null, last_error: error, run_time: later(delayMs), update_time: nowIso() })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'running')
      .where('attempts', '<', (eb) => eb.ref('max_attempts'))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Asks the scan's jobs to stop: queued ones end at once, a running one sees the request at its next heartbeat. */
  async requestCancel(scanId: string): Promise<void> {
    const now = nowIso();
    await this.db.updateTable('jobs').set({ status: 'cancelled', update_time: now }).where('scan_id', '=', scanId).where('status', '=', 'queued').execute();
    await this.db.updateTable('jobs').set({ cancel_requested: 1, update_time: now }).where('scan_id', '=', scanId).where('status', '=', 'running').execute();
  }

  /**
   * Jobs (of `kinds`, or any kind) whose worker died on their last attempt: marks them failed and returns them
   * (their scans must fail too).
   */
  async failAbandoned(kinds?: string[]): Promise<Job[]> {
    const now = nowIso();
    let query = this.db.updateTable('jobs');
    if (kinds) query = query.where('kind', 'in', kinds);
    const rows = await query
      .set({ status: 'failed', last_error: 'the worker running this job stopped responding on every attempt', lease_owner: null, update_time: now })
      .where('status', '=', 'running')
      .where('lease_expire_time', '<', now)
      .where('attempts', '>=', (eb) => eb.ref('max_attempts'))
      .returningAll()
      .execute();
    return rows.map(toJob);
  }
}

// The worker loop over the durable job table: claim a due job, keep its lease alive with heartbeats while
// the handler runs, abort the handler when cancellation is requested or the lease is lost, then finish it.
// Runs inside `serve` and as `firmscope worker`; any number of them share one database.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Job, JobRepository } from '../store/job.repository.js';
import { newId } from '../ids.js';
import { JOB_CHANNEL, onJobQueued } from '../store/job-signal.js';
import type { OpenedDatabase } from '../store/database.js';

export type JobOutcome = 'done' | 'failed' | 'cancelled';
export type JobHandler = (job: Job, signal: AbortSignal) => Promise<JobOutcome>;

export interface WorkerOptions {
  jobs: JobRepository;
  handlers: Record<string, JobHandler>;
  /** Called for jobs abandoned on their last attempt (their worker died every time). */
  onAbandoned?: (job: Job) => Promise<void>;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  leaseMs?: number;
  heartbeatMs?: number;
  pollMs?: number;
  /** Jobs run at once by this worker. */
  concurrency?: number;
  /**
   * PostgreSQL's LISTEN (OpenedDatabase.listen): jobs queued by other processes wake this worker at once. Jobs
   * queued in this process always do; without it, other processes' jobs wait for the next poll.
   */
  listen?: OpenedDatabase['listen'];
}

export class JobWorker {
  readonly owner = `${hostname()}:${process.pid}:${newId()}`;
  private running = false;
  private readonly active = new Map<string, AbortController>();
  private loops: Promise<void>[] = [];
  /** Loops asleep until their next poll, each woken by calling it. */
  private readonly sleepers = new Set<() => void>();
  /** A wake-up that came while no loop was asleep: the next sleep returns at once (the job may be missed otherwise). */
  private woken = false;
  private unsubscribe: Array<() => unknown> = [];

  constructor(private readonly options: WorkerOptions) {}

  private get leaseMs() {
    return this.options.leaseMs ?? 60_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // only jobs this worker runs wake it (a scan worker is not woken by webhook deliveries, and the other way round)
    this.unsubscribe.push(onJobQueued((kind) => Object.hasOwn(this.options.handlers, kind) && this.poke()));
    this.options.listen?.(JOB_CHANNEL, (kind) => (kind === undefined || Object.hasOwn(this.options.handlers, kind)) && this.poke()).then(
      (stop) => (this.running ? this.unsubscribe.push(stop) : void stop()),
      (error: unknown) => this.options.logger?.warn({ err: error }, 'LISTEN for queued jobs failed; polling only'),
    );
    const concurrency = Math.max(1, this.options.concurrency ?? 1);
    this.loops = Array.from({ length: concurrency }, () => this.loop());
  }

  /**
   * Stops claiming. Running jobs may finish within `graceMs` (a SIGTERM drain); those still running then are
   * aborted and handed back to the queue at once for another worker.
   */
  async stop(graceMs = 0): Promise<void> {
    this.running = false;
    for (const stop of this.unsubscribe.splice(0)) await stop();
    this.poke();
    const abortAll = () => {
      for (const controller of this.active.values()) controller.abort(new Error('worker stopping'));
    };
    const timer = graceMs > 0 ? setTimeout(abortAll, graceMs) : undefined;
    if (!timer) abortAll();
    await Promise.all(this.loops);
    clearTimeout(timer);
  }

  /** Jobs running now, and whether the worker still claims new ones (for /health). */
  get state(): { running: number; claiming: boolean } {
    return { running: this.active.size, claiming: this.running };
  }

  /** Wakes idle loops now (a job was just queued). */
  poke(): void {
    if (this.sleepers.size === 0) this.woken = true;
    for (const wake of [...this.sleepers]) wake();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let job: Job | undefined;
      try {
        await this.reap();
        job = await this.options.jobs.claim(this.owner, Object.keys(this.options.handlers), this.leaseMs);
      } catch (error) {
        this.options.logger?.error({ err: error }, 'job claim failed');
      }
      if (job) await this.run(job);
      else await this.sleep(this.options.pollMs ?? 1000);
    }
  }

  private async reap(): Promise<void> {
    const abandoned = await this.options.jobs.failAbandoned(Object.keys(this.options.handlers));
    for (const job of abandoned) {
      this.options.logger?.warn({ jobId: job.id, scanId: job.scanId }, 'job abandoned after its last attempt');
      await this.options.onAbandoned?.(job);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  private async run(job: Job): Promise<void> {
    const { jobs, logger } = this.options;
    const controller = new AbortController();
    this.active.set(job.id, controller);
    let cancelled = job.cancelRequested;
    if (cancelled) controller.abort(new Error('cancelled'));
    const beat = setInterval(() => {
      jobs.heartbeat(job.id, this.owner, this.leaseMs).then(
        (state) => {
          if (!state.owned) controller.abort(new Error('lease lost'));
          else if (state.cancelRequested) {
            cancelled = true;
            controller.abort(new Error('cancelled'));
          }
        },
        (error: unknown) => logger?.warn({ err: error, jobId: job.id }, 'heartbeat failed'),
      );
    }, this.options.heartbeatMs ?? Math.max(1000, Math.floor(this.leaseMs / 4)));
    logger?.info({ jobId: job.id, kind: job.kind, scanId: job.scanId, attempt: job.attempts }, 'job started');
    try {
      const handler = this.options.handlers[job.kind]!;
      const outcome = await handler(job, controller.signal);
      const final = cancelled ? 'cancelled' : outcome;
      if (controller.signal.aborted && !cancelled) {
        // Stopping: hand the job back at once; lease lost: another worker already has it.
        if (!this.running) await jobs.retry(job.id, this.owner, 'the worker stopped before finishing', 0);
        logger?.warn({ jobId: job.id }, 'job aborted (lease lost or worker stopping); left for retry');
      } else {
        await jobs.finish(job.id, this.owner, final);
        logger?.info({ jobId: job.id, outcome: final }, 'job finished');
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      logger?.error({ err: error, jobId: job.id }, 'job handler crashed');
      if (!(await jobs.retry(job.id, this.owner, reason, 5000))) await jobs.finish(job.id, this.owner, 'failed', reason);
    } finally {
      clearInterval(beat);
      this.active.delete(job.id);
    }
  }
}

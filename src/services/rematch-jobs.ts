// Fleet re-matching as jobs: after the vulnerability database changes, the latest image of every product is split
// into jobs of a few dozen images each, queued on the durable job table, so every worker (in `serve` and every
// `firmscope worker`, on any machine) takes a share, and a worker that dies hands its share to another (leases).
// Each job runs the same re-match as the inline one (vuln-rematch.ts) on its images; re-matching an image twice
// changes nothing, so a retried job is safe.
import type { Repositories } from '../store/repositories.js';
import type { RematchTarget } from './vuln-rematch.js';

export const REMATCH_JOB = 'rematch';

/** Images per job: small enough to spread over the workers, large enough that a job's set-up is paid rarely. */
export const REMATCH_BATCH = 25;

export interface RematchJobPayload {
  targets: RematchTarget[];
  epssThreshold?: number;
}

/** Queues the re-match of every product's latest image, `batchSize` images a job, in one transaction. */
export async function queueRematchJobs(repos: Repositories, options: { epssThreshold?: number; batchSize?: number } = {}): Promise<{ jobs: number; images: number }> {
  const batch = Math.max(1, options.batchSize ?? REMATCH_BATCH);
  const targets = await repos.scans.latestOfActiveProducts();
  let jobs = 0;
  await repos.transaction(async (tx) => {
    for (let i = 0; i < targets.length; i += batch) {
      const payload: RematchJobPayload = { targets: targets.slice(i, i + batch), ...(options.epssThreshold !== undefined ? { epssThreshold: options.epssThreshold } : {}) };
      await tx.jobs.enqueue({ kind: REMATCH_JOB, payload: payload as unknown as Record<string, unknown>, maxAttempts: 5 });
      jobs++;
    }
  });
  return { jobs, images: targets.length };
}

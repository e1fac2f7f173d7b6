// The 'scan' job kind: runs the scan use case with the engine in a worker thread.
import type { Metrics } from '../services/metrics.js';
import { runScan, type RunScanDeps } from '../services/run-scan.js';
import { moveScan } from '../services/scan-transitions.js';
import type { Repositories } from '../store/repositories.js';
import type { Job } from '../store/job.repository.js';
import type { JobHandler } from './worker.js';

export function scanJobHandler(deps: RunScanDeps, metrics?: Pick<Metrics, 'scanDuration'>): JobHandler {
  return async (job, signal) => {
    const scanId = String(job.payload['scanId'] ?? job.scanId);
    const started = performance.now();
    try {
      const outcome = await runScan(deps, scanId, signal, job.attempts);
      if (outcome !== 'skipped') metrics?.scanDuration.observe({ outcome }, (performance.now() - started) / 1000);
      return outcome === 'skipped' ? 'done' : outcome;
    } catch (error) {
      // An unexpected error (database down, disk full): retried, and on the last attempt the scan fails.
      if (job.attempts >= job.maxAttempts) {
        const reason = error instanceof Error ? error.message : String(error);
        await moveScan(deps.repos, scanId, ['new', 'running'], 'failed', { error: `scan could not run: ${reason}`, baseUrl: deps.baseUrl }).catch(() => false);
      }
      throw error;
    }
  };
}

/** A scan whose worker died on every attempt is failed with that reason, never left running. */
export function failAbandonedScan(repos: Repositories, baseUrl?: string) {
  return async (job: Job): Promise<void> => {
    if (!job.scanId) return;
    await moveScan(repos, job.scanId, ['new', 'running'], 'failed', {
      baseUrl,
      error: `the analysis stopped unexpectedly ${job.attempts} times (worker crash or out of memory); the image may be too large or hostile`,
    });
  };
}

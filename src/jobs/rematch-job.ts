// The 'rematch' job kind (services/rematch-jobs.ts): re-matches its share of the fleet's latest images against
// the vulnerability database. A failed lookup fails the job, so it is retried (a failed lookup is not "no match").
import type { Logger } from 'pino';
import type { VulnerabilitySource } from '../engine/vulns/source.js';
import type { RematchJobPayload } from '../services/rematch-jobs.js';
import { rematchLatestImages } from '../services/vuln-rematch.js';
import type { Repositories } from '../store/repositories.js';
import type { JobHandler } from './worker.js';

/** `baseUrl`: the service's, for the links of the finding.escalated webhook events. */
export function rematchJobHandler(repos: Repositories, source: VulnerabilitySource, logger?: Pick<Logger, 'info'>, baseUrl?: string): JobHandler {
  return async (job) => {
    const { targets, epssThreshold } = job.payload as unknown as RematchJobPayload;
    if (!Array.isArray(targets)) throw new Error(`re-match job ${job.id} has no targets`);
    const summary = await rematchLatestImages(repos, source, { targets, baseUrl, ...(epssThreshold !== undefined ? { epssThreshold } : {}) });
    const { problems, ...counts } = summary;
    logger?.info({ jobId: job.id, ...counts, problems: problems.length }, 're-match job finished');
    const error = problems.find((p) => p.kind === 'error');
    if (error) throw new Error(`re-matching ${targets.length} images: ${error.message}`);
    return 'done';
  };
}

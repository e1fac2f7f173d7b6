// The 'webhook' job kind: one attempt of one delivery (services/webhook-delivery.ts). Deliveries run in their own
// worker (server.ts createWebhookWorker) so that a long scan never holds them up.
import { attemptDelivery, type DeliveryOptions } from '../services/webhook-delivery.js';
import type { Job } from '../store/job.repository.js';
import type { Repositories } from '../store/repositories.js';
import type { JobHandler } from './worker.js';

/** A delivery whose sending worker died on every attempt of its job ends failed, never pending for ever. */
export function failAbandonedDelivery(repos: Repositories) {
  return async (job: Job): Promise<void> => {
    await repos.webhooks.abandon(String(job.payload['deliveryId']), `the worker sending it stopped responding ${job.attempts} times`);
  };
}

export function webhookJobHandler(repos: Repositories, options: DeliveryOptions): JobHandler {
  return async (job) => {
    await attemptDelivery(repos, String(job.payload['deliveryId']), Number(job.payload['attempt'] ?? 1), options);
    return 'done';
  };
}

// Retention of webhook deliveries: finished deliveries (succeeded or failed) older than the retention period
// (FIRMSCOPE_WEBHOOK_DELIVERY_RETENTION_DAYS, default 30) are deleted by the webhook worker, at its start and
// then every hour, in batches so that no sweep holds the table for long. Pending deliveries are never deleted.
import type { Logger } from 'pino';
import type { Repositories } from '../store/repositories.js';

const DAY_MS = 86_400_000;
const BATCH = 500;
export const RETENTION_SWEEP_INTERVAL_MS = 3_600_000;

/** Deletes the finished deliveries older than `retentionDays`; returns how many went. */
export async function pruneWebhookDeliveries(repos: Repositories, retentionDays: number, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * DAY_MS).toISOString();
  let total = 0;
  for (;;) {
    const deleted = await repos.webhooks.deleteFinishedBefore(before, BATCH);
    total += deleted;
    if (deleted < BATCH) return total;
  }
}

/** Sweeps now and then every `intervalMs`; the returned function stops it. A failed sweep is logged and retried at the next tick. */
export function scheduleWebhookRetention(repos: Repositories, retentionDays: number, logger: Logger, intervalMs = RETENTION_SWEEP_INTERVAL_MS): () => void {
  const sweep = () => {
    pruneWebhookDeliveries(repos, retentionDays).then(
      (deleted) => { if (deleted > 0) logger.info({ deleted, retentionDays }, 'old webhook deliveries deleted'); },
      (error: unknown) => logger.warn({ err: error }, 'webhook delivery retention sweep failed; retried at the next sweep'),
    );
  };
  sweep();
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

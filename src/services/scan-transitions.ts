// Moving a scan to another state together with its webhook event: a scan that ends (done, failed, cancelled)
// emits scan.completed, scan.failed or scan.cancelled in the same transaction as the move (services/webhook-events).
// Every state move of the service goes through here.
import type { Repositories } from '../store/repositories.js';
import type { ScanStateType } from '../store/schema.js';
import { emitEvent, type WebhookEventType } from './webhook-events.js';

const ENDING_EVENTS: Partial<Record<ScanStateType, WebhookEventType>> = { done: 'scan.completed', failed: 'scan.failed', cancelled: 'scan.cancelled' };

export interface MoveBy {
  authorId?: string | null;
  message?: string | null;
  error?: string | null;
  /** The service's base URL, for the event's links. */
  baseUrl?: string;
}

/** Moves the scan to `to` when its state is one of `from` (see ScanRepository.transition); false when it was not. */
export async function moveScan(repos: Repositories, scanId: string, from: ScanStateType[], to: ScanStateType, by: MoveBy = {}): Promise<boolean> {
  const type = ENDING_EVENTS[to];
  if (!type) return repos.scans.transition(scanId, from, to, by);
  return repos.transaction(async (tx) => {
    if (!(await tx.scans.transition(scanId, from, to, by))) return false;
    const scan = await tx.scans.getById(scanId);
    if (scan) {
      const error = to === 'failed' ? (scan.error ?? undefined) : undefined;
      await emitEvent(tx, {
        orgId: scan.orgId, type, baseUrl: by.baseUrl,
        data: { productId: scan.productId, imageId: scan.imageId, scanId: scan.id, state: to, ...(error ? { error } : {}) },
      });
    }
    return true;
  });
}

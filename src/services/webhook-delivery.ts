// One attempt of a durable webhook delivery, run by the 'webhook' job: send the stored body, signed, to the
// webhook's URL; record the answer; then either finish (2xx), schedule the next attempt as a new job after the
// retry schedule's delay (with jitter), or, once the schedule is exhausted, fail the delivery and disable the
// webhook with the reason. Each job names the attempt it makes, so a job run twice (its worker stopped after
// sending) changes nothing the second time. A disabled webhook's pending deliveries end without being sent.
import type { Repositories } from '../store/repositories.js';
import { WEBHOOK_JOB } from './webhook-events.js';
import { sendWebhook, type DeliveryAttempt } from './webhook-send.js';

export interface DeliveryOptions {
  /** Delay before each retry; its length is the number of retries (config.ts, FIRMSCOPE_WEBHOOK_RETRY_SCHEDULE). */
  retryScheduleMs: number[];
  /** ± this fraction of random jitter on each delay (default 0.1), so retries of many deliveries spread out. */
  jitter?: number;
  allowPrivate?: boolean;
  send?: typeof sendWebhook;
}

export type AttemptResult = 'succeeded' | 'retrying' | 'failed' | 'skipped';

const describeFailure = (attempt: DeliveryAttempt): string => attempt.error ?? `HTTP ${attempt.status}`;

function humanDuration(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

export function jittered(delayMs: number, jitter = 0.1, random = Math.random): number {
  return Math.max(0, Math.round(delayMs * (1 - jitter + 2 * jitter * random())));
}

/** Makes attempt number `attempt` of the delivery (see the file's comment). */
export async function attemptDelivery(repos: Repositories, deliveryId: string, attempt: number, options: DeliveryOptions): Promise<AttemptResult> {
  const delivery = await repos.webhooks.deliveryById(deliveryId);
  if (!delivery || delivery.status !== 'pending' || delivery.attempts !== attempt - 1) return 'skipped';
  const webhook = await repos.webhooks.getById(delivery.webhookId);
  if (!webhook) return 'skipped';
  if (!webhook.enabled) {
    await repos.webhooks.abandon(delivery.id, `not sent: the webhook is disabled (${webhook.disabledReason ?? 'no reason given'})`);
    return 'failed';
  }
  const send = options.send ?? sendWebhook;
  const sent = await send(webhook.url, webhook.secret, delivery.messageId, delivery.payload, { allowPrivate: options.allowPrivate });
  const retryDelay = sent.ok ? undefined : options.retryScheduleMs[attempt - 1];
  const status = sent.ok ? 'succeeded' : retryDelay === undefined ? 'failed' : 'pending';
  const nextAttemptTime = status === 'pending' ? new Date(Date.now() + jittered(retryDelay!, options.jitter)).toISOString() : null;
  return repos.transaction(async (tx) => {
    const recorded = await tx.webhooks.recordAttempt(delivery.id, attempt, {
      status, statusCode: sent.status, durationMs: sent.durationMs, error: sent.ok ? undefined : describeFailure(sent), nextAttemptTime,
    });
    if (!recorded) return 'skipped';
    await tx.webhooks.recordOutcome(webhook.id, sent.ok);
    if (status === 'succeeded') return 'succeeded';
    if (status === 'pending') {
      await tx.jobs.enqueue({ kind: WEBHOOK_JOB, payload: { deliveryId: delivery.id, attempt: attempt + 1 }, runAt: nextAttemptTime!, maxAttempts: 3 });
      return 'retrying';
    }
    const span = humanDuration(Date.now() - Date.parse(delivery.createTime));
    await tx.webhooks.disable(webhook.id,
      `disabled automatically: delivery ${delivery.id} (${delivery.eventType}) failed all ${attempt} attempts over ${span}; last error: ${describeFailure(sent)}. ` +
      'Fix the endpoint, then enable the webhook again (PATCH enabled: true) and redeliver.');
    return 'failed';
  });
}

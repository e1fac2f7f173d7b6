// The events webhooks receive, and their emission. An event is written as one delivery row per subscribed,
// enabled webhook of the organisation, plus the durable job that sends it, through the repositories of the
// transaction that makes the change: the change and its deliveries commit together, so a process that dies
// after the change cannot lose the event (and an event is never sent for a change that rolled back).
// Body: a small envelope {type, timestamp, data: {ids…, links}}; links are absolute when the base URL is known.
import { nowIso } from '../ids.js';
import type { Repositories } from '../store/repositories.js';
import type { WebhookDelivery } from '../store/webhook.repository.js';

export const WEBHOOK_EVENTS = [
  'image.created', 'scan.completed', 'scan.failed', 'scan.cancelled', 'finding.escalated', 'finding.statusChanged',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
/** Sent by `POST /api/v4/webhooks/{id}:test` only; no webhook subscribes to it. */
export const TEST_EVENT = 'webhook.test';

/** The job kind that sends one delivery attempt. */
export const WEBHOOK_JOB = 'webhook';

export interface WebhookEnvelope {
  type: string;
  timestamp: string;
  data: Record<string, unknown> & { links: Record<string, string> };
}

/** API paths of the resources an event names, prefixed with the service's base URL when given. */
export function resourceLinks(ids: { productId?: string; imageId?: string; scanId?: string; findingId?: string }, baseUrl = ''): Record<string, string> {
  const base = `${baseUrl.replace(/\/+$/, '')}/api/v4`;
  const links: Record<string, string> = {};
  if (ids.productId) links.product = `${base}/products/${ids.productId}`;
  if (ids.productId && ids.imageId) links.image = `${links.product}/images/${ids.imageId}`;
  if (links.image && ids.scanId) links.scan = `${links.image}/scans/${ids.scanId}`;
  if (ids.productId && ids.findingId) links.finding = `${links.product}/findings/${ids.findingId}`;
  return links;
}

export function envelope(type: string, data: Record<string, unknown>, links: Record<string, string>, timestamp = nowIso()): string {
  const body: WebhookEnvelope = { type, timestamp, data: { ...data, links } };
  return JSON.stringify(body);
}

/** A delivery row and the job that sends its first attempt (now), on the caller's repositories. */
export async function queueDelivery(tx: Repositories, input: { webhookId: string; eventType: string; payload: string; messageId?: string }): Promise<WebhookDelivery> {
  const delivery = await tx.webhooks.addDelivery(input);
  await tx.jobs.enqueue({ kind: WEBHOOK_JOB, payload: { deliveryId: delivery.id, attempt: 1 }, maxAttempts: 3 });
  return delivery;
}

export interface EventInput {
  orgId: string;
  type: WebhookEventType;
  /** The ids (and a few facts) of the event; `links` are added from them. */
  data: Record<string, unknown> & { productId?: string; imageId?: string; scanId?: string; findingId?: string };
  baseUrl?: string;
}

/**
 * Writes the event's deliveries, one per enabled webhook of the organisation that subscribed to it. Call it with
 * the repositories of the transaction that makes the change. Returns how many deliveries were queued.
 */
export async function emitEvent(tx: Repositories, event: EventInput): Promise<number> {
  const subscribers = await tx.webhooks.subscribers(event.orgId, event.type);
  if (subscribers.length === 0) return 0;
  const payload = envelope(event.type, event.data, resourceLinks(event.data, event.baseUrl));
  for (const webhook of subscribers) await queueDelivery(tx, { webhookId: webhook.id, eventType: event.type, payload });
  return subscribers.length;
}

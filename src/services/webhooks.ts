// An organisation's webhooks, for its admins: register a target (checked against the SSRF guard), list, change,
// enable again after an automatic disable, delete; rotate the signing secret (shown once, like the first one);
// send a test event; page through deliveries and redeliver one. Another organisation's webhooks are not found.
import type { Principal } from '../auth/principal.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import type { Repositories } from '../store/repositories.js';
import type { Webhook, WebhookDelivery, WebhookDeliveryStatus } from '../store/webhook.repository.js';
import { envelope, queueDelivery, resourceLinks, TEST_EVENT, WEBHOOK_EVENTS } from './webhook-events.js';
import { newWebhookSecret } from './webhook-send.js';
import { assertPublicTarget } from './webhook-target.js';

export type { Webhook, WebhookDelivery, WebhookDeliveryStatus };

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string;
}

function checkEvents(events: string[]): string[] {
  const known = WEBHOOK_EVENTS as readonly string[];
  const unknown = events.filter((e) => !known.includes(e));
  if (unknown.length > 0) {
    throw new InvalidInputError(`unknown event${unknown.length > 1 ? 's' : ''} ${unknown.map((e) => `'${e.slice(0, 100)}'`).join(', ')}; known events: ${known.join(', ')}`, [
      { reason: 'invalidArgument', field: 'events' },
    ]);
  }
  if (events.length === 0) throw new InvalidInputError(`events must name at least one of: ${known.join(', ')}`, [{ reason: 'required', field: 'events' }]);
  return [...new Set(events)];
}

async function checkUrl(url: string, allowPrivate?: boolean): Promise<string> {
  const trimmed = url.trim();
  await assertPublicTarget(trimmed, allowPrivate);
  return trimmed;
}

export async function requireWebhook(repos: Repositories, principal: Principal, webhookId: string): Promise<Webhook> {
  const webhook = await repos.webhooks.get(principal.orgId, webhookId);
  if (!webhook) throw new NotFoundError(`webhook ${webhookId} not found`, [{ reason: 'notFound', field: 'webhookId' }]);
  return webhook;
}

/** Registers a webhook; its secret is returned here and by rotateSecret only. */
export async function createWebhook(repos: Repositories, principal: Principal, input: WebhookInput, allowPrivate?: boolean): Promise<Webhook> {
  const events = checkEvents(input.events);
  const url = await checkUrl(input.url, allowPrivate);
  return repos.webhooks.create({ orgId: principal.orgId, url, events, description: input.description?.trim() ?? '', secret: newWebhookSecret(), authorId: principal.userId });
}

export async function listWebhooks(repos: Repositories, principal: Principal): Promise<Webhook[]> {
  return repos.webhooks.list(principal.orgId);
}

export async function updateWebhook(
  repos: Repositories, principal: Principal, webhookId: string, patch: Partial<WebhookInput> & { enabled?: boolean }, allowPrivate?: boolean,
): Promise<Webhook> {
  await requireWebhook(repos, principal, webhookId);
  const events = patch.events === undefined ? undefined : checkEvents(patch.events);
  const url = patch.url === undefined ? undefined : await checkUrl(patch.url, allowPrivate);
  return (await repos.webhooks.update(principal.orgId, webhookId, { url, events, description: patch.description?.trim(), enabled: patch.enabled }))!;
}

export async function deleteWebhook(repos: Repositories, principal: Principal, webhookId: string): Promise<void> {
  if (!(await repos.webhooks.delete(principal.orgId, webhookId))) await requireWebhook(repos, principal, webhookId);
}

/** A new secret, at once in force for every later attempt (pending deliveries included); returned once. */
export async function rotateSecret(repos: Repositories, principal: Principal, webhookId: string): Promise<Webhook> {
  await requireWebhook(repos, principal, webhookId);
  return (await repos.webhooks.update(principal.orgId, webhookId, { secret: newWebhookSecret() }))!;
}

function requireEnabled(webhook: Webhook): void {
  if (!webhook.enabled) {
    throw new ConflictError(`webhook ${webhook.id} is disabled (${webhook.disabledReason ?? 'no reason given'}); enable it first (PATCH with enabled: true)`, [
      { reason: 'disabled', field: 'webhookId' },
    ]);
  }
}

/** Queues a `webhook.test` delivery to the webhook, sent like any other. */
export async function sendTestEvent(repos: Repositories, principal: Principal, webhookId: string, baseUrl?: string): Promise<WebhookDelivery> {
  const webhook = await requireWebhook(repos, principal, webhookId);
  requireEnabled(webhook);
  const links = { ...resourceLinks({}, baseUrl), webhook: `${(baseUrl ?? '').replace(/\/+$/, '')}/api/v4/webhooks/${webhook.id}` };
  const payload = envelope(TEST_EVENT, { webhookId: webhook.id, message: 'a test event sent on request' }, links);
  return repos.transaction((tx) => queueDelivery(tx, { webhookId: webhook.id, eventType: TEST_EVENT, payload }));
}

export async function listDeliveries(
  repos: Repositories, principal: Principal, webhookId: string, page: { num?: number; size?: number; status?: WebhookDeliveryStatus },
): Promise<{ total: number; rows: WebhookDelivery[]; num: number; size: number }> {
  const webhook = await requireWebhook(repos, principal, webhookId);
  const num = Math.max(1, page.num ?? 1);
  const size = page.size ?? 10;
  const found = await repos.webhooks.deliveries(webhook.id, { offset: (num - 1) * size, limit: size, status: page.status });
  return { ...found, num, size };
}

/**
 * Sends a delivery again as a new delivery with the same body and the same `webhook-id` (receivers that
 * deduplicate by it see one message); the original keeps its record. Refused while the original is still pending.
 */
export async function redeliver(repos: Repositories, principal: Principal, webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
  const webhook = await requireWebhook(repos, principal, webhookId);
  const original = await repos.webhooks.delivery(webhook.id, deliveryId);
  if (!original) throw new NotFoundError(`delivery ${deliveryId} not found in webhook ${webhookId}`, [{ reason: 'notFound', field: 'deliveryId' }]);
  requireEnabled(webhook);
  if (original.status === 'pending') {
    throw new ConflictError(`delivery ${deliveryId} is still pending (attempt ${original.attempts + 1} is due ${original.nextAttemptTime}); redeliver it once it succeeded or failed`, [
      { reason: 'pending', field: 'deliveryId' },
    ]);
  }
  return repos.transaction((tx) => queueDelivery(tx, { webhookId: webhook.id, eventType: original.eventType, payload: original.payload, messageId: original.messageId }));
}

// An organisation's webhooks and their deliveries. Every read and write of a webhook is scoped by organisation;
// deliveries are reached through their webhook. A delivery row is the durable record of one message: the job that
// sends it (kind 'webhook') only carries its id, so the row says what was sent, how often, and what came back.
import { sql, type Kysely } from 'kysely';
import { newId, nowIso } from '../ids.js';
import type { Database, WebhookDeliveryStatus } from './schema.js';

export type { WebhookDeliveryStatus };

export interface Webhook {
  id: string;
  orgId: string;
  url: string;
  events: string[];
  description: string;
  secret: string;
  enabled: boolean;
  disabledReason: string | null;
  failureStreak: number;
  authorId: string | null;
  createTime: string;
  updateTime: string;
}

export interface WebhookDelivery {
  id: string;
  webhookId: string;
  messageId: string;
  eventType: string;
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastDurationMs: number | null;
  lastError: string | null;
  nextAttemptTime: string | null;
  createTime: string;
  updateTime: string;
}

const toWebhook = (r: Database['webhooks']): Webhook => ({
  id: r.id, orgId: r.org_id, url: r.url, events: JSON.parse(r.events) as string[], description: r.description, secret: r.secret,
  enabled: Number(r.enabled) === 1, disabledReason: r.disabled_reason, failureStreak: Number(r.failure_streak), authorId: r.author_id,
  createTime: r.create_time, updateTime: r.update_time,
});

const toDelivery = (r: Database['webhook_deliveries']): WebhookDelivery => ({
  id: r.id, webhookId: r.webhook_id, messageId: r.message_id, eventType: r.event_type, payload: r.payload, status: r.status,
  attempts: Number(r.attempts), lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code),
  lastDurationMs: r.last_duration_ms === null ? null : Number(r.last_duration_ms), lastError: r.last_error,
  nextAttemptTime: r.next_attempt_time, createTime: r.create_time, updateTime: r.update_time,
});

export class WebhookRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async create(input: { orgId: string; url: string; events: string[]; description: string; secret: string; authorId: string | null }): Promise<Webhook> {
    const now = nowIso();
    const row: Database['webhooks'] = {
      id: newId(), org_id: input.orgId, url: input.url, events: JSON.stringify(input.events), description: input.description, secret: input.secret,
      enabled: 1, disabled_reason: null, failure_streak: 0, author_id: input.authorId, create_time: now, update_time: now,
    };
    await this.db.insertInto('webhooks').values(row).execute();
    return toWebhook(row);
  }

  async get(orgId: string, id: string): Promise<Webhook | undefined> {
    const row = await this.db.selectFrom('webhooks').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    return row && toWebhook(row);
  }

  async getById(id: string): Promise<Webhook | undefined> {
    const row = await this.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toWebhook(row);
  }

  async list(orgId: string): Promise<Webhook[]> {
    const rows = await this.db.selectFrom('webhooks').selectAll().where('org_id', '=', orgId).orderBy('create_time').orderBy('id').execute();
    return rows.map(toWebhook);
  }

  /** The organisation's enabled webhooks that receive `eventType`. */
  async subscribers(orgId: string, eventType: string): Promise<Webhook[]> {
    const rows = await this.db.selectFrom('webhooks').selectAll().where('org_id', '=', orgId).where('enabled', '=', 1).orderBy('id').execute();
    return rows.map(toWebhook).filter((w) => w.events.includes(eventType));
  }

  /** Changes url, events, description or secret; enabling clears the disabled reason and the failure streak. */
  async update(orgId: string, id: string, patch: { url?: string; events?: string[]; description?: string; secret?: string; enabled?: boolean }): Promise<Webhook | undefined> {
    const values: Partial<Database['webhooks']> = { update_time: nowIso() };
    if (patch.url !== undefined) values.url = patch.url;
    if (patch.events !== undefined) values.events = JSON.stringify(patch.events);
    if (patch.description !== undefined) values.description = patch.description;
    if (patch.secret !== undefined) values.secret = patch.secret;
    if (patch.enabled === true) Object.assign(values, { enabled: 1, disabled_reason: null, failure_streak: 0 });
    if (patch.enabled === false) Object.assign(values, { enabled: 0, disabled_reason: 'disabled by an administrator' });
    await this.db.updateTable('webhooks').set(values).where('org_id', '=', orgId).where('id', '=', id).execute();
    return this.get(orgId, id);
  }

  /** Deletes the webhook and its deliveries; false when it does not exist in the organisation. */
  async delete(orgId: string, id: string): Promise<boolean> {
    const owned = await this.get(orgId, id);
    if (!owned) return false;
    await this.db.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
    await this.db.deleteFrom('webhooks').where('id', '=', id).execute();
    return true;
  }

  /** Counts one attempt's outcome: a success resets the failure streak, a failure adds one. Returns the streak. */
  async recordOutcome(id: string, ok: boolean): Promise<number> {
    const row = await this.db
      .updateTable('webhooks')
      .set({ failure_streak: ok ? 0 : sql<number>`failure_streak + 1` })
      .where('id', '=', id)
      .returning(['failure_streak'])
      .executeTakeFirst();
    return Number(row?.failure_streak ?? 0);
  }

  /** Stops the webhook from receiving anything, saying why (shown by GET). */
  async disable(id: string, reason: string): Promise<void> {
    await this.db.updateTable('webhooks').set({ enabled: 0, disabled_reason: reason, update_time: nowIso() }).where('id', '=', id).where('enabled', '=', 1).execute();
  }

  async addDelivery(input: { webhookId: string; eventType: string; payload: string; messageId?: string }): Promise<WebhookDelivery> {
    const now = nowIso();
    const id = newId();
    const row: Database['webhook_deliveries'] = {
      id, webhook_id: input.webhookId, message_id: input.messageId ?? `msg_${id}`, event_type: input.eventType, payload: input.payload, status: 'pending',
      attempts: 0, last_status_code: null, last_duration_ms: null, last_error: null, next_attempt_time: now, create_time: now, update_time: now,
    };
    await this.db.insertInto('webhook_deliveries').values(row).execute();
    return toDelivery(row);
  }

  async delivery(webhookId: string, id: string): Promise<WebhookDelivery | undefined> {
    const row = await this.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).where('id', '=', id).executeTakeFirst();
    return row && toDelivery(row);
  }

  async deliveryById(id: string): Promise<WebhookDelivery | undefined> {
    const row = await this.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toDelivery(row);
  }

  /** A page of the webhook's deliveries, newest first. */
  async deliveries(webhookId: string, page: { offset: number; limit: number; status?: WebhookDeliveryStatus }): Promise<{ total: number; rows: WebhookDelivery[] }> {
    let base = this.db.selectFrom('webhook_deliveries').where('webhook_id', '=', webhookId);
    if (page.status) base = base.where('status', '=', page.status);
    const total = await base.select((eb) => eb.fn.countAll().as('count')).executeTakeFirst();
    const rows = await base.selectAll().orderBy('create_time', 'desc').orderBy('id', 'desc').offset(page.offset).limit(page.limit).execute();
    return { total: Number(total?.count ?? 0), rows: rows.map(toDelivery) };
  }

  /**
   * Records attempt number `attempt` of a pending delivery: its answer, and either its final status or when the
   * next attempt is due. False when the delivery had moved on (another worker recorded this attempt already).
   */
  async recordAttempt(id: string, attempt: number, outcome: { status: WebhookDeliveryStatus; statusCode?: number; durationMs: number; error?: string; nextAttemptTime: string | null }): Promise<boolean> {
    const result = await this.db
      .updateTable('webhook_deliveries')
      .set({
        status: outcome.status, attempts: attempt, last_status_code: outcome.statusCode ?? null, last_duration_ms: Math.round(outcome.durationMs),
        last_error: outcome.error?.slice(0, 1000) ?? null, next_attempt_time: outcome.nextAttemptTime, update_time: nowIso(),
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('attempts', '=', attempt - 1)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Deletes up to `batch` finished (succeeded or failed) deliveries last updated before `before`, oldest first.
   * Returns how many went; pending deliveries are never touched. Bounded so a sweep never holds a long lock.
   */
  async deleteFinishedBefore(before: string, batch: number): Promise<number> {
    const ids = await this.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', 'in', ['succeeded', 'failed'])
      .where('update_time', '<', before)
      .orderBy('update_time')
      .limit(batch)
      .execute();
    if (ids.length === 0) return 0;
    const result = await this.db.deleteFrom('webhook_deliveries').where('id', 'in', ids.map((r) => r.id)).where('status', '!=', 'pending').executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Ends a pending delivery without sending it (its webhook was disabled meanwhile). */
  async abandon(id: string, reason: string): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: reason.slice(0, 1000), next_attempt_time: null, update_time: nowIso() })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .execute();
  }
}

// Frozen: an organisation's webhooks and their deliveries. `webhooks` holds the target URL, the subscribed event
// types (JSON array), the signing secret (Standard Webhooks `whsec_…`, needed in clear to sign), whether it is
// enabled and why it was disabled, and the count of failed attempts in a row. `webhook_deliveries` holds one
// message to one webhook: its event, the exact JSON body sent, its status (pending, succeeded, failed), the
// attempts so far, the last answer (status code, duration, error) and when the next attempt is due.
// Portable types only. Never edit; add a new numbered migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('failure_streak', 'integer', (c) => c.notNull())
    .addColumn('author_id', 'text')
    .addColumn('create_time', 'text', (c) => c.notNull())
    .addColumn('update_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_org').on('webhooks').columns(['org_id', 'create_time']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id'))
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('last_status_code', 'integer')
    .addColumn('last_duration_ms', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_time', 'text')
    .addColumn('create_time', 'text', (c) => c.notNull())
    .addColumn('update_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_webhook').on('webhook_deliveries').columns(['webhook_id', 'create_time']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0008-webhooks cannot be reverted');
}

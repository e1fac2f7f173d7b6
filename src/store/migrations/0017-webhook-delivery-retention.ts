// Frozen once released. An index for the retention sweep of finished webhook deliveries (older than
// FIRMSCOPE_WEBHOOK_DELIVERY_RETENTION_DAYS by their last update): the sweep reads them oldest first in batches.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('webhook_deliveries_finished').on('webhook_deliveries').columns(['status', 'update_time']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0017-webhook-delivery-retention cannot be reverted');
}

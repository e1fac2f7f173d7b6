// Frozen once released. analysis_cache_usage: each organisation's running count of its analysis_cache bytes
// (analysis-cache.repository.ts), so that a write need not sum every row to know whether the cap is passed: the sum
// read the whole table, 4.5 s for a million rows (800 MB of values) on a 2-core machine, at the end of every scan.
// An organisation's row is made from that sum the first time its cache is written after this migration. bigint:
// the default cap is 2 GiB. Portable. Never edit; add a new numbered 00xx migration.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analysis_cache_usage')
    .addColumn('org_id', 'text', (c) => c.primaryKey())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0018-analysis-cache-usage cannot be reverted');
}

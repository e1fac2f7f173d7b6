// Frozen once released. analysis_cache: the engine's content-addressed analysis cache (engine/analysis-cache.ts),
// per organisation: a later scan in the same organisation reuses what an earlier one found in the same files or
// the same image; another organisation never does (its scan's timing would tell that the file is known). Keys are
// SHA-256 hex strings that already hold the engine's digest, so a new engine simply stops asking for old rows;
// the least recently used rows go when an organisation's rows pass the byte cap (last_used_at's index).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analysis_cache')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('analysis_cache_pk', ['org_id', 'key'])
    .execute();
  await db.schema.createIndex('analysis_cache_lru').on('analysis_cache').columns(['org_id', 'last_used_at', 'key']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0016-analysis-cache cannot be reverted');
}

// Frozen: a scan's summary (the engine's ScanSummary as JSON: files, formats, coverage, problems by level, phase
// times, complete and why not) and its problems as rows, so they can be paged and filtered by level. Portable
// types only. Never edit; add a new numbered 00xx migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('scans').addColumn('summary', 'text').execute();
  await db.schema
    .createTable('scan_problems')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scans.id'))
    /** Position in the engine's list: the order problems are listed in. */
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('path', 'text')
    .addColumn('byte_offset', 'double precision')
    .addColumn('message', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('scan_problems_scan_level').on('scan_problems').columns(['scan_id', 'level', 'seq']).execute();
  await db.schema.createIndex('scan_problems_scan_seq').on('scan_problems').columns(['scan_id', 'seq']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0002-scan-summary cannot be reverted');
}

// Frozen once released. finding_resolutions: the history of findings that re-matching resolved because their
// vulnerability no longer applies (the record's range changed, it was rejected). The finding leaves `findings`
// (so it is no longer reported, counted or compared) and is kept here with why. findings.match_confidence and
// match_confidence_label: how sure a dependency vulnerability's match is, filtered and sorted in the grid (null
// for other findings and for rows stored before). findings.applicability: the kernel triage's verdict
// (applicable | not-applicable | unknown; null when not triaged): a not-applicable finding is rejected by default
// (vulnerable_code_not_present) and counted apart. Portable types only.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('finding_resolutions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('finding_id', 'text', (c) => c.notNull())
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scans.id').onDelete('cascade'))
    .addColumn('image_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('pname', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('create_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('finding_resolutions_product').on('finding_resolutions').columns(['product_id', 'fingerprint']).execute();
  await db.schema.alterTable('findings').addColumn('match_confidence', 'real').execute();
  await db.schema.alterTable('findings').addColumn('match_confidence_label', 'text').execute();
  await db.schema.alterTable('findings').addColumn('applicability', 'text').execute();
  await db.schema.createIndex('finding_resolutions_scan').on('finding_resolutions').column('scan_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0010-finding-applicability cannot be reverted');
}

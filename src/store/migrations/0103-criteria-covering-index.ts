// Frozen: the (vendor, product, version keys) index of vuln_criteria also holds every column the matcher reads
// (vulns-criteria.ts criteriaFor), so both databases answer the criteria of an inventory from the index alone
// (SQLite: a covering index; PostgreSQL: an index-only scan once vacuumed) instead of visiting a table page per
// row: a product like the Linux kernel has tens of thousands of rows spread over the whole table. It replaces the
// narrower index of 0101, whose columns are its prefix. Portable SQL only. Never edit; add a new numbered 01xx
// migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('vuln_criteria_match').on('vuln_criteria')
    .columns([
      'vendor', 'product', 'vulnerable', 'keyed', 'low_key', 'high_key',
      'source', 'record_id', 'imported_at', 'config_index', 'criterion_index', 'part', 'version', 'cpe_update', 'others',
      'start_including', 'start_excluding', 'end_including', 'end_excluding',
    ])
    .execute();
  await db.schema.dropIndex('vuln_criteria_product').execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0103-criteria-covering-index cannot be reverted');
}

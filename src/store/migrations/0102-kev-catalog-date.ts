// Frozen: vuln_kev.catalog_date, the date of the KEV catalog each entry came from, so that an entry from an older
// catalog never replaces one from a newer catalog (see putKev). Rows imported before this migration keep null (an
// unknown date: the next import replaces them). Portable types only. Never edit; add a new numbered 01xx migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('vuln_kev').addColumn('catalog_date', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0102-kev-catalog-date cannot be reverted');
}

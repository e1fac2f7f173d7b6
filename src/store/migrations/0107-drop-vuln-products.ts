// Frozen once released. vuln_products (the CPE vendor/product pairs of each record) is no longer read: matching
// selects records through vuln_criteria, which holds the same pairs with each criterion (0101, 0103). The table
// and its index go; the record writer stops filling it. Portable. Never edit; add a new numbered 01xx migration.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('vuln_products_record').ifExists().execute();
  await db.schema.dropTable('vuln_products').ifExists().execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0107-drop-vuln-products cannot be reverted');
}

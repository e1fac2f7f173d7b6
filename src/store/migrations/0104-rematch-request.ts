// Frozen: vuln_rematch, the persisted request to re-match the latest images after the vulnerability data changed
// (see vuln-rematch-request.ts). One row at most. Portable types only. Never edit; add a new numbered 01xx
// migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('vuln_rematch')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('requested_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0104-rematch-request cannot be reverted');
}

// Frozen: a finding's state carries why it does not apply. `justification` (an OpenVEX justification label) on
// the current state and on every history entry, and the current state's `comment`, so VEX documents can say
// why without reading the history. Existing states take the comment of their latest history entry. Portable
// types only. Never edit; add a new numbered 00xx migration instead.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('finding_statuses').addColumn('justification', 'text').execute();
  await db.schema.alterTable('finding_statuses').addColumn('comment', 'text').execute();
  await db.schema.alterTable('finding_status_history').addColumn('justification', 'text').execute();
  await sql`
    update finding_statuses set comment = (
      select h.comment from finding_status_history h
      where h.product_id = finding_statuses.product_id and h.fingerprint = finding_statuses.fingerprint
      order by h.create_time desc, h.id desc limit 1
    )`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migration 0003-finding-state-justification cannot be reverted');
}

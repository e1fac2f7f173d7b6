// Frozen: an organisation's malicious-code rules. `rules` holds its own YARA-X rule sources (one row per source,
// which may declare several rules), named uniquely per organisation; `disabled_builtin_rules` lists the shipped
// rules it has switched off (a row per rule id 'builtin/<file>/<rule>'; no row means enabled). Portable types
// only. Never edit; add a new numbered migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('author_id', 'text')
    .addColumn('create_time', 'text', (c) => c.notNull())
    .addColumn('update_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rules_org_name').on('rules').columns(['org_id', 'name']).unique().execute();

  await db.schema
    .createTable('disabled_builtin_rules')
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id'))
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text')
    .addColumn('create_time', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('disabled_builtin_rules_pk', ['org_id', 'rule_id'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0005-custom-rules cannot be reverted');
}

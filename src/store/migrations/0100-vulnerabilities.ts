// Frozen: the vulnerability database tables (see vulns.schema.ts). Portable types only, so the same migration
// runs on SQLite and PostgreSQL. Never edit; add a new numbered 01xx migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('vuln_records')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addColumn('vuln_id', 'text', (c) => c.notNull())
    .addColumn('modified', 'text')
    .addColumn('published', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('vuln_records_pk', ['source', 'record_id'])
    .execute();
  await db.schema.createIndex('vuln_records_vuln').on('vuln_records').column('vuln_id').execute();
  await db.schema.createIndex('vuln_records_modified').on('vuln_records').column('modified').execute();

  await db.schema
    .createTable('vuln_products')
    .addColumn('vendor', 'text', (c) => c.notNull())
    .addColumn('product', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('vuln_products_pk', ['vendor', 'product', 'source', 'record_id'])
    .execute();
  await db.schema.createIndex('vuln_products_record').on('vuln_products').columns(['source', 'record_id']).execute();

  await db.schema
    .createTable('vuln_packages')
    .addColumn('ecosystem', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('vuln_packages_pk', ['ecosystem', 'name', 'source', 'record_id'])
    .execute();
  await db.schema.createIndex('vuln_packages_record').on('vuln_packages').columns(['source', 'record_id']).execute();

  await db.schema
    .createTable('vuln_aliases')
    .addColumn('alias', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('vuln_aliases_pk', ['alias', 'source', 'record_id'])
    .execute();
  await db.schema.createIndex('vuln_aliases_record').on('vuln_aliases').columns(['source', 'record_id']).execute();

  await db.schema
    .createTable('vuln_kev')
    .addColumn('cve_id', 'text', (c) => c.primaryKey())
    .addColumn('date_added', 'text', (c) => c.notNull())
    .addColumn('due_date', 'text')
    .addColumn('known_ransomware_campaign_use', 'text')
    .addColumn('required_action', 'text')
    .execute();

  await db.schema
    .createTable('vuln_epss')
    .addColumn('cve_id', 'text', (c) => c.primaryKey())
    .addColumn('probability', 'double precision', (c) => c.notNull())
    .addColumn('percentile', 'double precision', (c) => c.notNull())
    .addColumn('score_date', 'text')
    .execute();

  await db.schema
    .createTable('vuln_feeds')
    .addColumn('feed', 'text', (c) => c.primaryKey())
    .addColumn('feed_date', 'text')
    .addColumn('cursor', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

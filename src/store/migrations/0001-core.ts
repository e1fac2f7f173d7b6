// Frozen: the core schema. Portable types only (text, integer, bigint, double precision) so the same
// migration runs on SQLite and PostgreSQL. Never edit; add a new numbered migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organisations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('create_time', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('create_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_org').on('users').column('org_id').execute();

  await db.schema
    .createTable('clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('create_time', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('private_jwk', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('create_time', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organisations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('is_archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('create_time', 'text', (c) => c.notNull())
    .addColumn('update_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('products_org').on('products').column('org_id').execute();

  await db.schema
    .createTable('images')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('product_id', 'text', (c) => c.notNull().references('products.id'))
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('version', 'text')
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('sha1', 'text', (c) => c.notNull())
    .addColumn('md5', 'text', (c) => c.notNull())
    .addColumn('detected_type', 'text')
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('is_archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('create_time', 'text', (c) => c.notNull())
    .addColumn('update_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('images_product').on('images').column('product_id').execute();

  await db.schema
    .createTable('temp_files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('product_id', 'text', (c) => c.notNull().references('products.id'))
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('blob_key', 'text')
    .addColumn('size', 'bigint')
    .addColumn('sha256', 'text')
    .addColumn('sha1', 'text')
    .addColumn('md5', 'text')
    .addColumn('expire_time', 'text', (c) => c.notNull())
    .addColumn('create_time', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('image_files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('image_id', 'text', (c) => c.notNull().references('images.id'))
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('create_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('image_files_image').on('image_files').column('image_id').execute();

  await db.schema
    .createTable('scans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('image_id', 'text', (c) => c.notNull().references('images.id'))
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('state_id', 'text', (c) => c.notNull())
    .addColumn('state_time', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('progress_phase', 'text')
    .addColumn('progress_percent', 'integer')
    .addColumn('engine_version', 'text')
    .addColumn('result_blob_key', 'text')
    .addColumn('create_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('scans_image').on('scans').column('image_id').execute();

  await db.schema
    .createTable('scan_states')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scans.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text')
    .addColumn('message', 'text')
    .addColumn('create_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('scan_states_scan').on('scan_states').column('scan_id').execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('scan_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_time', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expire_time', 'text')
    .addColumn('cancel_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('create_time', 'text', (c) => c.notNull())
    .addColumn('update_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_claim').on('jobs').columns(['status', 'run_time']).execute();
  await db.schema.createIndex('jobs_scan').on('jobs').column('scan_id').execute();

  await db.schema
    .createTable('components')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scans.id'))
    .addColumn('image_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('version', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('cpe', 'text')
    .addColumn('purl', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('components_scan').on('components').column('scan_id').execute();

  await db.schema
    .createTable('findings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scans.id'))
    .addColumn('image_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('finding_type', 'text', (c) => c.notNull())
    .addColumn('pname', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('cvss_score', 'double precision')
    .addColumn('epss_probability', 'double precision')
    .addColumn('is_kev', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('component_name', 'text')
    .addColumn('component_version', 'text')
    .addColumn('create_time', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('findings_scan').on('findings').column('scan_id').execute();
  await db.schema.createIndex('findings_image').on('findings').column('image_id').execute();
  await db.schema.createIndex('findings_product_fp').on('findings').columns(['product_id', 'fingerprint']).execute();

  await db.schema
    .createTable('finding_statuses')
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('update_time', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('finding_statuses_pk', ['product_id', 'fingerprint'])
    .execute();

  await db.schema
    .createTable('finding_status_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('finding_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('create_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('finding_status_history_fp')
    .on('finding_status_history')
    .columns(['product_id', 'fingerprint'])
    .execute();

  await db.schema
    .createTable('crypto_assets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scans.id'))
    .addColumn('image_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('asset_type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_expired', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('crypto_assets_scan').on('crypto_assets').column('scan_id').execute();

  await db.schema
    .createTable('escalations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('image_id', 'text', (c) => c.notNull())
    .addColumn('finding_fingerprint', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('details', 'text')
    .addColumn('acknowledged', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('create_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('escalations_image').on('escalations').column('image_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0001-core cannot be reverted');
}

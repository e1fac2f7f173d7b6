// Frozen: the binaries of a scan (ScanResult.binaries), one row each, with a column for everything the binaries
// grid filters or sorts by (each hardening flag on its own: ELF flags are null on PE rows and PE flags null on
// ELF rows; relro as text) and the rest (unsafe functions with callers, rpath, symbol counts) as JSON; plus
// `scans.unsafe_uses`, the image total of unsafe function uses (call sites where decoded, imports elsewhere).
// A scan stored before this migration keeps unsafe_uses null: its binaries were never recorded. Portable types
// only. Never edit; add a new numbered 00xx migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('scans').addColumn('unsafe_uses', 'integer').execute();
  await db.schema
    .createTable('binaries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scans.id'))
    .addColumn('image_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('arch', 'text', (c) => c.notNull())
    .addColumn('bits', 'integer', (c) => c.notNull())
    .addColumn('endian', 'text', (c) => c.notNull())
    .addColumn('nx', 'integer', (c) => c.notNull())
    .addColumn('pie', 'integer')
    .addColumn('relro', 'text')
    .addColumn('canary', 'integer')
    .addColumn('fortify', 'integer')
    .addColumn('stripped', 'integer')
    .addColumn('aslr', 'integer')
    .addColumn('high_entropy_va', 'integer')
    .addColumn('cfg', 'integer')
    .addColumn('safe_seh', 'integer')
    .addColumn('force_integrity', 'integer')
    .addColumn('signed', 'integer')
    .addColumn('unsafe_uses', 'integer', (c) => c.notNull())
    .addColumn('network_facing', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('binaries_scan_path').on('binaries').columns(['scan_id', 'path']).execute();
  await db.schema.createIndex('binaries_image').on('binaries').columns(['image_id']).execute();
  await db.schema.createIndex('binaries_product').on('binaries').columns(['product_id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0006-binaries cannot be reverted');
}

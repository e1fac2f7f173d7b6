// Frozen: authorization codes of the built-in identity provider's login page (authorization code flow with
// PKCE). Only a SHA-256 of each code is kept; a code is single use (deleted when redeemed) and short-lived.
// Portable types only. Never edit; add a new numbered migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('authorization_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text')
    .addColumn('create_time', 'text', (c) => c.notNull())
    .addColumn('expire_time', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('authorization_codes_expire').on('authorization_codes').column('expire_time').execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0009-authorization-codes cannot be reverted');
}

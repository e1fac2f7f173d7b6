// Frozen: identity hardening. external_identities binds an external issuer's subject (issuer, sub) to the local
// user it signs in as; sign_in_failures keeps the failed password sign-ins per account name (see
// auth/sign-in-throttle.ts), in the database so every server process applies the same delays and locks.
// Portable types only. Never edit; add a new numbered migration instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('external_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().unique().references('users.id'))
    .addColumn('create_time', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('external_identities_pk', ['issuer', 'subject'])
    .execute();

  await db.schema
    .createTable('sign_in_failures')
    .addColumn('account', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failure_time', 'text', (c) => c.notNull())
    .addColumn('blocked_until', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_failures_last').on('sign_in_failures').column('last_failure_time').execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0004-identity-hardening cannot be reverted');
}

// The persisted request to re-match the latest images: set in the same transaction as any change to the
// vulnerability data (records, KEV, EPSS), cleared only by a re-match that finished after it, so data committed
// by an import or sync that stopped before its re-match (a crash, a failed feed, --no-rematch) is re-matched by
// the next run instead of being skipped as "nothing changed".
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

const ID = 'latest-images';

/** Records that the data changed at `now` (upsert; the latest time wins). */
export async function requestRematch(db: Kysely<Database> | Transaction<Database>, now: string): Promise<void> {
  await db.insertInto('vuln_rematch').values({ id: ID, requested_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ requested_at: sql`excluded.requested_at` }))
    .execute();
}

/** When the pending re-match was requested, or undefined when none is pending. */
export async function rematchRequestedAt(db: Kysely<Database>): Promise<string | undefined> {
  const row = await db.selectFrom('vuln_rematch').select('requested_at').where('id', '=', ID).executeTakeFirst();
  return row?.requested_at;
}

/** Clears the request a re-match served; a request made since (a change during the re-match) stays. */
export async function clearRematch(db: Kysely<Database>, requestedAt: string): Promise<void> {
  await db.deleteFrom('vuln_rematch').where('id', '=', ID).where('requested_at', '=', requestedAt).execute();
}

// Frozen: one finding per fingerprint in a scan, enforced by a unique index on findings(scan_id, fingerprint).
// The fingerprint is a finding's identity (the engine merges findings per fingerprint, and re-matching adds only
// missing fingerprints), but nothing stopped two concurrent writers (overlapping re-matches on PostgreSQL) from
// both inserting the same one. Databases written before this may hold such duplicates: they are removed first,
// deterministically, keeping the row with the lowest id of each (scan, fingerprint) (ids are ULIDs, the same
// length and alphabet, so both databases order them alike). finding_status_history is the one table that refers
// to a finding by id (escalations refer by fingerprint): its rows move to the kept finding. Portable SQL only.
// Never edit; add a new numbered 01xx migration instead.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    UPDATE finding_status_history SET finding_id = (
      SELECT MIN(k.id) FROM findings d JOIN findings k ON k.scan_id = d.scan_id AND k.fingerprint = d.fingerprint
      WHERE d.id = finding_status_history.finding_id
    )
    WHERE finding_id IN (
      SELECT d.id FROM findings d
      WHERE EXISTS (SELECT 1 FROM findings k WHERE k.scan_id = d.scan_id AND k.fingerprint = d.fingerprint AND k.id < d.id)
    )
  `.execute(db);
  await sql`
    DELETE FROM findings
    WHERE EXISTS (SELECT 1 FROM findings k WHERE k.scan_id = findings.scan_id AND k.fingerprint = findings.fingerprint AND k.id < findings.id)
  `.execute(db);
  await db.schema.createIndex('findings_scan_fingerprint').on('findings').columns(['scan_id', 'fingerprint']).unique().execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0105-findings-unique-fingerprint cannot be reverted');
}

// What must hold in a store whatever happened to the processes writing it (crashes, kills, retries): the
// database is consistent, every image's blob is intact, a scan's results are stored once, and nothing is left in
// flight. Each check returns sentences describing what is wrong (empty when all is well).
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { BlobStore } from '../../src/store/blob-store.js';
import type { Dialect } from '../../src/store/database.js';
import type { Database } from '../../src/store/schema.js';

const FINAL = ['done', 'failed', 'cancelled'];

/** SQLite: integrity_check is ok and no row breaks a foreign key. PostgreSQL: no row points at a missing parent. */
export async function databaseIntegrityProblems(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  const problems: string[] = [];
  if (dialect === 'sqlite') {
    const integrity = (await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(db)).rows.map((r) => r.integrity_check);
    if (integrity.join() !== 'ok') problems.push(`PRAGMA integrity_check: ${integrity.join('; ')}`);
    const broken = (await sql<{ table: string; parent: string; rowid: number }>`PRAGMA foreign_key_check`.execute(db)).rows;
    for (const row of broken) problems.push(`foreign key broken: ${row.table} row ${row.rowid} → ${row.parent}`);
  } else {
    // Every single-column foreign key of the schema, checked as a query (constraints can be deferred or disabled).
    const keys = (await sql<{ child: string; column: string; parent: string; parent_column: string }>`
      select c.conrelid::regclass::text as child, a.attname as column, c.confrelid::regclass::text as parent, pa.attname as parent_column
      from pg_constraint c
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
      join pg_attribute pa on pa.attrelid = c.confrelid and pa.attnum = c.confkey[1]
      where c.contype = 'f' and c.connamespace = current_schema()::regnamespace and cardinality(c.conkey) = 1`.execute(db)).rows;
    if (keys.length === 0) problems.push('no foreign keys found in the schema: the orphan check checked nothing');
    for (const key of keys) {
      const orphans = (await sql<{ n: number }>`
        select count(*)::int as n from ${sql.table(key.child)} x
        where x.${sql.ref(key.column)} is not null
          and not exists (select 1 from ${sql.table(key.parent)} p where p.${sql.ref(key.parent_column)} = x.${sql.ref(key.column)})`.execute(db)).rows[0]!.n;
      if (orphans > 0) problems.push(`${orphans} rows of ${key.child}.${key.column} point at no ${key.parent}.${key.parent_column}`);
    }
  }
  // jobs.scan_id has no foreign key (a job kind may have no scan): checked here on both databases.
  const strayJobs = await db.selectFrom('jobs').select('id').where('scan_id', 'is not', null)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('scans').select('scans.id').whereRef('scans.id', '=', 'jobs.scan_id')))).execute();
  if (strayJobs.length > 0) problems.push(`${strayJobs.length} jobs name a scan that does not exist`);
  return problems;
}

/** A scan's findings, components, crypto assets and binaries are each stored once: no two rows share an identity in one scan. */
export async function duplicateResultProblems(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = [];
  const findings = await db.selectFrom('findings').select(['scan_id', 'fingerprint', db.fn.countAll<number>().as('n')])
    .groupBy(['scan_id', 'fingerprint']).having(db.fn.countAll(), '>', 1).execute();
  for (const row of findings) problems.push(`scan ${row.scan_id} has ${row.n} findings with fingerprint ${row.fingerprint}`);
  for (const table of ['components', 'crypto_assets'] as const) {
    const rows = await db.selectFrom(table).select(['scan_id', 'ref', db.fn.countAll<number>().as('n')])
      .groupBy(['scan_id', 'ref']).having(db.fn.countAll(), '>', 1).execute();
    for (const row of rows) problems.push(`scan ${row.scan_id} has ${row.n} ${table} with ref ${row.ref}`);
  }
  const binaries = await db.selectFrom('binaries').select(['scan_id', 'path', db.fn.countAll<number>().as('n')])
    .groupBy(['scan_id', 'path']).having(db.fn.countAll(), '>', 1).execute();
  for (const row of binaries) problems.push(`scan ${row.scan_id} has ${row.n} binaries at ${row.path}`);
  return problems;
}

/** Every scan and scan job is final, and a scan's history reaches a final state once. */
export async function unfinishedWorkProblems(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = [];
  for (const scan of await db.selectFrom('scans').select(['id', 'state']).where('state', 'not in', FINAL as never[]).execute()) {
    problems.push(`scan ${scan.id} is still ${scan.state}`);
  }
  for (const job of await db.selectFrom('jobs').select(['id', 'scan_id', 'status']).where('status', 'not in', FINAL as never[]).execute()) {
    problems.push(`job ${job.id} (scan ${job.scan_id}) is still ${job.status}`);
  }
  const twice = await db.selectFrom('scan_states').select(['scan_id', db.fn.countAll<number>().as('n')])
    .where('type', 'in', FINAL as never[]).groupBy('scan_id').having(db.fn.countAll(), '>', 1).execute();
  for (const row of twice) problems.push(`scan ${row.scan_id} reached a final state ${row.n} times`);
  return problems;
}

/** Every image's blob exists and has the SHA-256 recorded for it (and the one `expected` gives for its name). */
export async function imageBlobProblems(db: Kysely<Database>, blobs: BlobStore, expected: Map<string, string>): Promise<string[]> {
  const problems: string[] = [];
  for (const image of await db.selectFrom('images').select(['id', 'name', 'blob_key', 'sha256', 'size']).execute()) {
    const label = `image ${image.id} (${image.name})`;
    let actual: string;
    try {
      const hash = createHash('sha256');
      for await (const chunk of await blobs.read(image.blob_key)) hash.update(chunk as Buffer);
      actual = hash.digest('hex');
    } catch (error) {
      problems.push(`${label}: its blob ${image.blob_key} cannot be read: ${(error as Error).message}`);
      continue;
    }
    if (actual !== image.sha256) problems.push(`${label}: blob SHA-256 ${actual} differs from the recorded ${image.sha256}`);
    const sent = expected.get(image.name);
    if (sent === undefined) problems.push(`${label}: no upload of this name was made`);
    else if (sent !== image.sha256) problems.push(`${label}: recorded SHA-256 ${image.sha256} is not the one of the uploaded bytes ${sent}`);
  }
  return problems;
}

/**
 * Finalizing an upload is all or nothing: a temp file marked used has become an image (else the client's retry is
 * refused with 409 and the uploaded bytes are lost), and, when every upload asked for a scan, every image has one.
 */
export async function finalizeProblems(db: Kysely<Database>, everyImageScanned: boolean): Promise<string[]> {
  const problems: string[] = [];
  const usedWithoutImage = await db.selectFrom('temp_files').select(['id', 'blob_key']).where('status', '=', 'used')
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('images').select('images.id').whereRef('images.blob_key', '=', 'temp_files.blob_key')))).execute();
  for (const temp of usedWithoutImage) {
    problems.push(`temp file ${temp.id} is marked used but no image holds its blob ${temp.blob_key}: finalizing it again is refused and the upload is lost`);
  }
  if (everyImageScanned) {
    const unscanned = await db.selectFrom('images').select(['id', 'name'])
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('scans').select('scans.id').whereRef('scans.image_id', '=', 'images.id')))).execute();
    for (const image of unscanned) problems.push(`image ${image.id} (${image.name}) was uploaded with a scan requested but has no scan`);
  }
  return problems;
}

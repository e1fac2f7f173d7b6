// Writes vulnerability records with their lookup rows (products, criteria, packages, aliases), many records per
// transaction: an import writes them in batches, which costs a few statements per batch instead of per record.
// A batch is one transaction, so no record is ever half-written. The rules are those of a single write: a record
// replaces the stored one only when newer (or, both undated, when it differs); a record met twice in one batch
// counts as it would one after the other.
// Writers of the vulnerability data (record batches here, KEV and EPSS batches in vulns-importer.ts) decide what
// to write from what they read, so concurrent ones (two imports, an import and a sync) take turns: each transaction
// begins with lockVulnerabilityWrites and reads only after it.
import { sql, type Kysely, type Transaction } from 'kysely';
import { recordKeys, shouldReplace, type PutResult } from '../engine/vulns/memory-source.js';
import type { VulnerabilityRecord } from '../engine/vulns/source.js';
import { dialectOf } from './database.js';
import type { Database } from './schema.js';
import { requestRematch } from './vuln-rematch-request.js';
import { criteriaRows } from './vulns-criteria.js';
import { listCte } from './vulns-lists.js';

/** Rows per insert statement: under both databases' parameter limits for the widest table (vuln_criteria). */
const ROWS_PER_INSERT = 500;

interface Pending {
  record: VulnerabilityRecord;
  source: string;
  recordId: string;
  data: string;
  /** Set once accepted: its import time (nextImportStamp). */
  importedAt?: string;
}

async function insertRows<T extends keyof Database>(trx: Transaction<Database>, table: T, rows: Array<Database[T]>): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    await trx.insertInto(table).values(rows.slice(i, i + ROWS_PER_INSERT) as never).execute();
  }
}

/**
 * Makes the transaction the only writer of the vulnerability data until it ends. On PostgreSQL a transaction-scoped
 * advisory lock (keyed by the schema, so databases in other schemas of one server do not wait for each other):
 * without it two imports of the same record both found it missing and both inserted it, and the second failed on
 * the primary key. ON CONFLICT on the record row alone would not do: whether a record replaces the stored one, and
 * which lookup rows (products, criteria, packages, aliases) to delete and insert with it, depends on the stored
 * version, which only a read after the other writer committed gives. On SQLite every transaction begins IMMEDIATE,
 * holding the database's write lock already (database.ts).
 */
export async function lockVulnerabilityWrites(trx: Transaction<Database>): Promise<void> {
  if (dialectOf(trx) !== 'postgres') return;
  await sql`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':firmscope-vulnerability-writes'))`.execute(trx);
}

interface StoredVersion {
  modified: string | null;
  data: string;
  importedAt: string;
}

/** The stored (modified, data, imported_at) of the records, by `${source}\0${record_id}`. */
async function storedVersions(trx: Transaction<Database>, keys: Pending[]): Promise<Map<string, StoredVersion>> {
  const out = new Map<string, StoredVersion>();
  for (let i = 0; i < keys.length; i += ROWS_PER_INSERT) {
    const asked = listCte(trx, 'k', ['source', 'record_id'], keys.slice(i, i + ROWS_PER_INSERT).map((k) => [k.source, k.recordId]));
    const { rows } = await sql<{ source: string; record_id: string; modified: string | null; data: string; imported_at: string }>`
      WITH ${asked}
      SELECT r.source, r.record_id, r.modified, r.data, r.imported_at FROM k JOIN vuln_records r ON r.source = k.source AND r.record_id = k.record_id
    `.execute(trx);
    for (const r of rows) out.set(`${r.source}\0${r.record_id}`, { modified: r.modified, data: r.data, importedAt: r.imported_at });
  }
  return out;
}

/**
 * The import time of a replacing version: `now`, or just after the stored one when that is not earlier. The
 * matcher names a record's version by its import time (vulns-reader.ts), so two writes in one millisecond must
 * still give two versions, or criteria of the old version would be read with the record of the new one.
 */
export function nextImportStamp(now: string, stored: string | undefined): string {
  const after = Date.parse(stored ?? '');
  if (stored === undefined || now > stored || Number.isNaN(after)) return now;
  return new Date(after + 1).toISOString();
}

/** Writes the records in one transaction; the result of each, in order. */
export async function writeRecords(db: Kysely<Database>, records: VulnerabilityRecord[], now = new Date().toISOString()): Promise<PutResult[]> {
  if (records.length === 0) return [];
  const pending: Pending[] = records.map((record) => {
    const { epss: _epss, ...stored } = record;
    return { record, source: record.source ?? 'unknown', recordId: record.sourceId ?? record.id, data: JSON.stringify(stored) };
  });
  return db.transaction().execute(async (trx) => {
    await lockVulnerabilityWrites(trx);
    const stored = await storedVersions(trx, pending);
    const inDatabase = new Set(stored.keys());
    const results: PutResult[] = [];
    // the last accepted version of each record in this batch
    const accepted = new Map<string, Pending>();
    for (const p of pending) {
      const key = `${p.source}\0${p.recordId}`;
      const old = stored.get(key);
      if (old && (old.data === p.data || !shouldReplace(p.record.modified, old.modified, () => old.data !== p.data))) {
        results.push('unchanged');
        continue;
      }
      results.push(old ? 'updated' : 'inserted');
      const importedAt = nextImportStamp(now, old?.importedAt);
      stored.set(key, { modified: p.record.modified ?? null, data: p.data, importedAt });
      accepted.set(key, { ...p, importedAt });
    }
    const writes = [...accepted.entries()];
    const replaced = writes.filter(([key]) => inDatabase.has(key)).map(([, p]) => p);
    for (const p of replaced) {
      for (const table of ['vuln_criteria', 'vuln_packages', 'vuln_aliases'] as const) {
        await trx.deleteFrom(table).where('source', '=', p.source).where('record_id', '=', p.recordId).execute();
      }
    }
    const row = (p: Pending) => ({ vuln_id: p.record.id, modified: p.record.modified ?? null, published: p.record.published ?? null, data: p.data, imported_at: p.importedAt ?? now });
    for (const p of replaced) {
      await trx.updateTable('vuln_records').set(row(p)).where('source', '=', p.source).where('record_id', '=', p.recordId).execute();
    }
    const fresh = writes.filter(([key]) => !inDatabase.has(key)).map(([, p]) => p);
    await insertRows(trx, 'vuln_records', fresh.map((p) => ({ source: p.source, record_id: p.recordId, ...row(p) })));
    const all = writes.map(([, p]) => p);
    const keysOf = all.map((p) => ({ p, keys: recordKeys(p.record) }));
    await insertRows(trx, 'vuln_criteria', all.flatMap((p) => criteriaRows({ ...p.record, source: p.source, sourceId: p.recordId }, p.importedAt ?? now)));
    await insertRows(trx, 'vuln_packages', keysOf.flatMap(({ p, keys }) => keys.packages.map(([ecosystem, name]) => ({ ecosystem, name, source: p.source, record_id: p.recordId }))));
    await insertRows(trx, 'vuln_aliases', all.flatMap((p) => [...new Set([p.record.id, p.recordId, ...p.record.aliases])].map((alias) => ({ alias, source: p.source, record_id: p.recordId }))));
    if (all.length > 0) await requestRematch(trx, now);
    return results;
  });
}

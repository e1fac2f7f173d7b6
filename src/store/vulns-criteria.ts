// The vuln_criteria table: each record's CPE criteria as rows (criteria-index.ts), written with the record, and
// read by (vendor, product) for the matcher. The query leaves out criteria whose version keys show they cannot
// hold the asked version (the same test as keysAdmit); the matcher tests every row it gets.
import { sql, type Kysely } from 'kysely';
import { indexCriteria, UNKEYED, type IndexedCriterion } from '../engine/vulns/criteria-index.js';
import type { VulnerabilityRecord } from '../engine/vulns/source.js';
import { versionKey } from '../engine/vulns/version-key.js';
import type { Database } from './schema.js';
import { listCte } from './vulns-lists.js';
import type { VulnCriteriaTable } from './vulns.schema.js';

const BATCH = 500;
/** (vendor, product) pairs per query (up to six parameters each). */
const PAIRS_PER_QUERY = 200;

/** The rows of a record written (or imported) at `importedAt`, its vuln_records.imported_at. */
export function criteriaRows(record: VulnerabilityRecord, importedAt: string): VulnCriteriaTable[] {
  return indexCriteria(record).map((c) => ({
    vendor: c.vendor, product: c.product, source: c.source, record_id: c.recordId, config_index: c.configIndex, imported_at: importedAt,
    criterion_index: c.criterionIndex, vulnerable: c.vulnerable ? 1 : 0, part: c.part, version: c.version, cpe_update: c.update,
    others: c.others ? JSON.stringify(c.others) : null,
    start_including: c.versionStartIncluding ?? null, start_excluding: c.versionStartExcluding ?? null,
    end_including: c.versionEndIncluding ?? null, end_excluding: c.versionEndExcluding ?? null,
    keyed: c.keys.keyed ? 1 : 0, low_key: c.keys.low, high_key: c.keys.high,
  }));
}

async function insertCriteria(db: Kysely<Database>, rows: VulnCriteriaTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await db.insertInto('vuln_criteria').values(rows.slice(i, i + BATCH)).execute();
}

/** Fills vuln_criteria from the records already stored (the migration that adds the table runs this). */
export async function backfillCriteria(db: Kysely<Database>, pageSize = 1000): Promise<number> {
  let after: { source: string; record_id: string } | undefined;
  let count = 0;
  for (;;) {
    let page = db.selectFrom('vuln_records').select(['source', 'record_id', 'imported_at', 'data']).orderBy('source').orderBy('record_id').limit(pageSize);
    if (after) {
      const { source, record_id } = after;
      page = page.where((eb) => eb.or([eb('source', '>', source), eb.and([eb('source', '=', source), eb('record_id', '>', record_id)])]));
    }
    const rows = await page.execute();
    if (rows.length === 0) return count;
    // rows are keyed by the stored (source, record_id), whatever the record's JSON says
    await insertCriteria(db, rows.flatMap((r) => {
      const record = JSON.parse(r.data) as VulnerabilityRecord;
      return criteriaRows({ ...record, source: r.source, sourceId: r.record_id }, r.imported_at);
    }));
    count += rows.length;
    after = rows[rows.length - 1]!;
  }
}

const COLUMNS = sql`c.vendor, c.product, c.source, c.record_id, c.imported_at, c.config_index, c.criterion_index, c.part, c.version,
  c.cpe_update, c.others, c.start_including, c.start_excluding, c.end_including, c.end_excluding`;

/**
 * The vulnerable criteria for the asked (vendor, product, version)s, by `${vendor}\0${product}` (see
 * VulnerabilityQuery.select; VulnerabilityReader.query asks it). The asked pairs are a list (vulns-lists.ts) joined to the (vendor, product, ...) index,
 * and each branch of the query is a plain conjunction, so both databases answer it with index ranges: for a pair
 * asked at one plain version, the rows without keys and the keyed rows with low_key <= k < high_key (keysAdmit);
 * for any other pair, all its rows.
 */
export async function criteriaFor(db: Kysely<Database>, queries: Array<{ vendor: string; product: string; version: string }>): Promise<Map<string, IndexedCriterion[]>> {
  // per pair, the key of the asked version; null when a version has no key or two versions are asked
  const pairs = new Map<string, { vendor: string; product: string; key: string | null }>();
  for (const { vendor, product, version } of queries) {
    const pair = `${vendor}\0${product}`;
    const key = versionKey(version) ?? null;
    const entry = pairs.get(pair);
    if (!entry) pairs.set(pair, { vendor, product, key });
    else if (entry.key !== key) entry.key = null;
  }
  const out = new Map<string, IndexedCriterion[]>([...pairs.keys()].map((p) => [p, []]));
  const list = [...pairs.values()];
  for (let i = 0; i < list.length; i += PAIRS_PER_QUERY) {
    const part = list.slice(i, i + PAIRS_PER_QUERY);
    const keyed = part.filter((q) => q.key !== null);
    const open = part.filter((q) => q.key === null);
    const lists = [];
    const branches = [];
    if (keyed.length > 0) {
      lists.push(listCte(db, 'q', ['vendor', 'product', 'k'], keyed.map((q) => [q.vendor, q.product, q.key])));
      branches.push(sql`SELECT ${COLUMNS} FROM q JOIN vuln_criteria c ON c.vendor = q.vendor AND c.product = q.product
        AND c.vulnerable = 1 AND c.keyed = 1 AND c.low_key <= q.k AND c.high_key > q.k`);
      branches.push(sql`SELECT ${COLUMNS} FROM q JOIN vuln_criteria c ON c.vendor = q.vendor AND c.product = q.product
        AND c.vulnerable = 1 AND c.keyed = 0`);
    }
    if (open.length > 0) {
      lists.push(listCte(db, 'n', ['vendor', 'product'], open.map((q) => [q.vendor, q.product])));
      branches.push(sql`SELECT ${COLUMNS} FROM n JOIN vuln_criteria c ON c.vendor = n.vendor AND c.product = n.product AND c.vulnerable = 1`);
    }
    const { rows } = await sql<SelectedRow>`WITH ${sql.join(lists)} ${sql.join(branches, sql` UNION ALL `)}`.execute(db);
    for (const r of rows) out.get(`${r.vendor}\0${r.product}`)?.push(toCriterion(r));
  }
  return out;
}

type SelectedRow = Pick<VulnCriteriaTable, 'vendor' | 'product' | 'source' | 'record_id' | 'imported_at' | 'config_index' | 'criterion_index' | 'part' | 'version' | 'cpe_update' | 'others' | 'start_including' | 'start_excluding' | 'end_including' | 'end_excluding'>;

function toCriterion(r: SelectedRow): IndexedCriterion {
  return {
    // the query already applied the version keys, so the matcher need not: they are not read back
    source: r.source, recordId: r.record_id, configIndex: Number(r.config_index), criterionIndex: Number(r.criterion_index), vulnerable: true, part: r.part, vendor: r.vendor,
    product: r.product, version: r.version, update: r.cpe_update, others: r.others === null ? null : (JSON.parse(r.others) as string[]),
    versionStartIncluding: r.start_including ?? undefined, versionStartExcluding: r.start_excluding ?? undefined,
    versionEndIncluding: r.end_including ?? undefined, versionEndExcluding: r.end_excluding ?? undefined, keys: UNKEYED,
    recordStamp: r.imported_at,
  };
}

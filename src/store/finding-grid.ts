// The findings grid query: findings of each image's latest completed scan (or of named scans), with their
// carried-forward issue status, filtered, sorted and paged in SQL; in compare mode the union of a baseline
// and a target image with each row's comparison status (new | resolved | unchanged) by fingerprint.
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { defaultIssueStatus, totalFromScanCounts } from './finding-grid-total.js';
import { conditionSql, countedPage, latestDoneScans, type Comparator, type GridCondition as Condition } from './grid-query.js';
import type { Database } from './schema.js';

export type GridColumn =
  | 'id' | 'pname' | 'name' | 'finding_type' | 'severity' | 'issue_status' | 'cvss_score' | 'epss_probability' | 'is_kev'
  | 'component_name' | 'component_version' | 'product_id' | 'image_id' | 'scan_id' | 'create_time' | 'fingerprint' | 'comparison' | 'data'
  | 'severity_rank' | 'match_confidence' | 'match_confidence_label';

export type { Comparator };
export type GridCondition = Condition<GridColumn>;

export interface GridCriteria {
  orgId: string;
  compare?: { left: string; right: string };
  conditions: GridCondition[];
  sort: Array<{ column: GridColumn; direction: 'asc' | 'desc' }>;
  offset: number;
  /** Absent: every matching row. */
  limit?: number;
  /** Skip counting the matching rows (total is then 0): the batches of a streamed CSV export. */
  withoutTotal?: boolean;
}

export interface GridRow {
  id: string;
  pname: string;
  name: string;
  finding_type: string;
  severity: string;
  issue_status: string;
  cvss_score: number | null;
  epss_probability: number | null;
  is_kev: number;
  component_name: string | null;
  component_version: string | null;
  match_confidence: number | null;
  match_confidence_label: string | null;
  product_id: string;
  image_id: string;
  scan_id: string;
  create_time: string;
  fingerprint: string;
  comparison: string | null;
  data: string;
}

// Migration 0011 indexes this very expression (findings_grid_product, findings_grid_image): change both together.
const SEVERITY_RANK = sql<number>`case f.severity when 'critical' then 5 when 'high' then 4 when 'medium' then 3 when 'low' then 2 else 1 end`;

/** The grid's rows (the derived table `g`) with the criteria's conditions applied, not yet sorted or paged. */
function filteredGrid(db: Kysely<Database>, criteria: GridCriteria) {
  const explicitScans = criteria.conditions.some((c) => c.column === 'scan_id');
  // Scans whose findings count: each image's newest completed scan, unless the caller names scans.
  const latestDone = latestDoneScans(db);

  const base = (comparison: RawBuilder<string | null>) => {
    let query = db
      .selectFrom('findings as f')
      .innerJoin('products as p', 'p.id', 'f.product_id')
      .leftJoin('finding_statuses as fs', (join) => join.onRef('fs.product_id', '=', 'f.product_id').onRef('fs.fingerprint', '=', 'f.fingerprint'))
      .where('p.org_id', '=', criteria.orgId)
      .select([
        'f.id', 'f.pname', 'f.name', 'f.finding_type', 'f.severity', 'f.cvss_score', 'f.epss_probability', 'f.is_kev', 'f.component_name',
        'f.component_version', 'f.match_confidence', 'f.match_confidence_label', 'f.product_id', 'f.image_id', 'f.scan_id', 'f.create_time', 'f.fingerprint', 'f.data',
        sql<string>`coalesce(fs.status, ${defaultIssueStatus(sql<SqlBool>`f.applicability = 'not-applicable'`)})`.as('issue_status'),
        SEVERITY_RANK.as('severity_rank'),
        comparison.as('comparison'),
      ]);
    if (!explicitScans || criteria.compare) query = query.where('f.scan_id', 'in', latestDone);
    return query;
  };

  const sameIn = (imageId: string) =>
    sql<SqlBool>`exists (select 1 from findings f2 where f2.image_id = ${imageId} and f2.fingerprint = f.fingerprint and f2.scan_id in (${latestDone}))`;

  let derived;
  if (criteria.compare) {
    const { left, right } = criteria.compare;
    const target = base(sql<string>`case when ${sameIn(left)} then 'unchanged' else 'new' end`).where('f.image_id', '=', right);
    const baseline = base(sql<string>`'resolved'`).where('f.image_id', '=', left).where(sql<SqlBool>`not ${sameIn(right)}`);
    derived = target.unionAll(baseline as never);
  } else {
    derived = base(sql<string | null>`null`);
  }

  let query = db.selectFrom(derived.as('g') as never) as unknown as ReturnType<typeof gridFrom>;
  for (const condition of criteria.conditions) query = query.where(conditionSql('g', condition));
  return query;
}

export async function queryFindingGrid(db: Kysely<Database>, criteria: GridCriteria): Promise<{ total: number; rows: GridRow[] }> {
  const query = filteredGrid(db, criteria);
  const counted = await totalFromScanCounts(db, criteria);
  // The page is picked over narrow columns, then the wide finding documents (about 2 KB each) are read for the
  // page's rows only: sorting and limiting them along with the rest spilled to disk for large products.
  const page = await countedPage(query, (q: typeof query) => q.select(NARROW_COLUMNS.map((c) => `g.${c}` as const)), 'g',
    counted === undefined ? criteria : { ...criteria, withoutTotal: true });
  const ids = page.rows.map((r) => r.id);
  const documents = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 1000) {
    const found = await db.selectFrom('findings').select(['id', 'data']).where('id', 'in', ids.slice(i, i + 1000)).execute();
    for (const row of found) documents.set(row.id, row.data);
  }
  return { total: counted ?? page.total, rows: page.rows.map((r) => ({ ...r, data: documents.get(r.id) ?? '{}' })) };
}

/**
 * The ids of every matching row, in the grid's order: a streamed export reads them first (26 bytes a row), then the
 * rows themselves by id, a batch at a time (queryFindingGrid with an id condition), instead of paging by offset,
 * which re-reads every earlier row for each batch.
 */
export async function queryFindingGridIds(db: Kysely<Database>, criteria: Omit<GridCriteria, 'offset' | 'limit'>): Promise<string[]> {
  const { rows } = await countedPage(filteredGrid(db, { ...criteria, offset: 0 }), (q) => q.select('g.id'), 'g', { ...criteria, offset: 0, withoutTotal: true });
  return rows.map((r) => (r as { id: string }).id);
}

const NARROW_COLUMNS = [
  'id', 'pname', 'name', 'finding_type', 'severity', 'issue_status', 'cvss_score', 'epss_probability', 'is_kev', 'component_name',
  'component_version', 'match_confidence', 'match_confidence_label', 'product_id', 'image_id', 'scan_id', 'create_time', 'fingerprint', 'comparison',
] as const satisfies ReadonlyArray<keyof GridRow>;

// Only for its type: a query over the derived table `g`.
function gridFrom(db: Kysely<{ g: GridRow & { severity_rank: number } }>) {
  return db.selectFrom('g');
}

// The findings grid's total without counting every finding (a large product holds 100,000 and more): from the
// per-scan counts of migration 0015, when the filters are on columns those counts hold. A filter on the issue
// status is answered too: the counts give each finding's default status (new, or rejected when the kernel triage
// found its code not built), and the findings whose fingerprint has a status set (finding_statuses, a few per
// product) are corrected one by one: counted under their set status instead of their default.
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { GridColumn, GridCriteria } from './finding-grid.js';
import { conditionSql, latestDoneScans, type GridCondition } from './grid-query.js';
import type { Database } from './schema.js';

/** The issue status a finding has until someone sets one: a kernel finding the triage found not built is rejected. */
export function defaultIssueStatus(notApplicable: RawBuilder<SqlBool>): RawBuilder<string> {
  return sql<string>`case when ${notApplicable} then 'rejected' else 'new' end`;
}

/** Columns that scan_finding_counts holds, besides the issue status. */
const COUNTED_COLUMNS: ReadonlySet<GridColumn> = new Set(['product_id', 'image_id', 'scan_id', 'finding_type', 'severity', 'is_kev']);

/** The grid's total from the counts, or undefined when the findings themselves must be counted (compare mode, other filters). */
export async function totalFromScanCounts(db: Kysely<Database>, criteria: GridCriteria): Promise<number | undefined> {
  if (criteria.compare || criteria.withoutTotal) return undefined;
  const status = criteria.conditions.filter((c) => c.column === 'issue_status');
  const others = criteria.conditions.filter((c) => c.column !== 'issue_status');
  if (!others.every((c) => COUNTED_COLUMNS.has(c.column))) return undefined;
  const latestOnly = !others.some((c) => c.column === 'scan_id');
  const all = (table: string, conditions: GridCondition[]) => sql.join(conditions.map((c) => conditionSql(table, c)), sql` and `);

  // Every finding under its default status.
  const counts = db.selectFrom('scan_finding_counts as c').innerJoin('products as p', 'p.id', 'c.product_id').where('p.org_id', '=', criteria.orgId)
    .select(['c.product_id', 'c.image_id', 'c.scan_id', 'c.finding_type', 'c.severity', 'c.is_kev', 'c.n',
      defaultIssueStatus(sql<SqlBool>`c.not_applicable = 1`).as('issue_status')]);
  let base = db.selectFrom((latestOnly ? counts.where('c.scan_id', 'in', latestDoneScans(db)) : counts).as('t'))
    .select(sql<number | string>`coalesce(sum(t.n), 0)`.as('n'));
  for (const condition of criteria.conditions) base = base.where(conditionSql('t', condition));
  const total = Number((await base.executeTakeFirst())?.n ?? 0);
  if (status.length === 0) return total;

  // The findings with a status set: +1 where the set status matches, -1 where the default (counted above) did.
  const triaged = db.selectFrom('finding_statuses as fs')
    .innerJoin('findings as f', (join) => join.onRef('f.product_id', '=', 'fs.product_id').onRef('f.fingerprint', '=', 'fs.fingerprint'))
    .innerJoin('products as p', 'p.id', 'f.product_id').where('p.org_id', '=', criteria.orgId)
    .select(['f.product_id', 'f.image_id', 'f.scan_id', 'f.finding_type', 'f.severity', 'f.is_kev', 'fs.status as issue_status',
      defaultIssueStatus(sql<SqlBool>`f.applicability = 'not-applicable'`).as('default_status')]);
  const asDefault = status.map((c) => ({ ...c, column: 'default_status' }));
  let correction = db.selectFrom((latestOnly ? triaged.where('f.scan_id', 'in', latestDoneScans(db)) : triaged).as('t'))
    .select(sql<number | string>`coalesce(sum((case when ${all('t', status)} then 1 else 0 end) - (case when ${all('t', asDefault)} then 1 else 0 end)), 0)`.as('n'));
  for (const condition of others) correction = correction.where(conditionSql('t', condition));
  return total + Number((await correction.executeTakeFirst())?.n ?? 0);
}

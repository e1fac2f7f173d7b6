// The binaries grid query: binaries of each image's latest completed scan (or of named scans) in the caller's
// organisation, filtered, sorted and paged in SQL.
import type { Kysely } from 'kysely';
import { conditionSql, countedPage, latestDoneScans, type GridCondition } from './grid-query.js';
import type { BinariesTable, Database } from './schema.js';

export type BinaryColumn = Exclude<keyof BinariesTable, 'org_id' | 'data'>;

export interface BinaryGridCriteria {
  orgId: string;
  conditions: Array<GridCondition<BinaryColumn>>;
  sort: Array<{ column: BinaryColumn; direction: 'asc' | 'desc' }>;
  offset: number;
  /** Absent: every matching row (CSV export). */
  limit?: number;
}

export type BinaryGridRow = Omit<BinariesTable, 'org_id'>;

export async function queryBinaryGrid(db: Kysely<Database>, criteria: BinaryGridCriteria): Promise<{ total: number; rows: BinaryGridRow[] }> {
  let query = db.selectFrom('binaries as b').where('b.org_id', '=', criteria.orgId);
  if (!criteria.conditions.some((c) => c.column === 'scan_id')) query = query.where('b.scan_id', 'in', latestDoneScans(db));
  for (const condition of criteria.conditions) query = query.where(conditionSql('b', condition));
  const { total, rows } = await countedPage(query, (q: typeof query) => q.selectAll('b'), 'b', criteria);
  return { total, rows: rows.map(({ org_id: _org, ...row }) => row) };
}

// The binaries grid query: binaries of each image's latest completed scan (or of named scans) in the caller's
// organisation, filtered, sorted and paged in SQL.
import { sql, type Kysely } from 'kysely';
import { conditionSql, latestDoneScans, type GridCondition } from './grid-query.js';
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
  const counted = await query.select(sql<number | string>`count(*)`.as('n')).executeTakeFirst();
  let rows = query.selectAll('b');
  for (const s of criteria.sort) rows = rows.orderBy(sql.ref(`b.${s.column}`), s.direction);
  rows = rows.orderBy('b.id');
  if (criteria.limit !== undefined) rows = rows.limit(criteria.limit).offset(criteria.offset);
  const result = await rows.execute();
  return { total: Number(counted?.n ?? 0), rows: result.map(({ org_id: _org, ...row }) => row) };
}

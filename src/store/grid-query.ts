// What every grid query shares: the scans whose rows count (each image's newest completed scan), one filter
// condition as SQL over a named column, and the count, sort and page of the filtered rows. The findings, cryptographic-asset and binary grids use these.
import { sql, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database } from './schema.js';

export type Comparator = 'equals' | 'in' | 'contains' | 'notContains' | 'between' | 'overlaps';

/** One validated filter: `column` is a known column name (from a fixed table, never raw input). */
export interface GridCondition<Column extends string = string> {
  column: Column;
  comparator: Comparator;
  values: Array<string | number>;
}

/** Ids of each image's newest completed scan (ties on create time broken by id), as a subquery. */
export function latestDoneScans(db: Kysely<Database>) {
  return db
    .selectFrom('scans as s')
    .select('s.id')
    .where('s.state', '=', 'done')
    .where(({ not, exists, selectFrom }) =>
      not(exists(
        selectFrom('scans as s2').select('s2.id')
          .whereRef('s2.image_id', '=', 's.image_id')
          .where('s2.state', '=', 'done')
          .where((eb) => eb.or([eb('s2.create_time', '>', eb.ref('s.create_time')), eb.and([eb('s2.create_time', '=', eb.ref('s.create_time')), eb('s2.id', '>', eb.ref('s.id'))])])),
      )),
    );
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The condition on `table.column`; text comparisons (contains, notContains) ignore case. */
export function conditionSql(table: string, condition: GridCondition) {
  const column = sql.ref(`${table}.${condition.column}`);
  const [first, second] = condition.values;
  switch (condition.comparator) {
    case 'equals':
      return sql<SqlBool>`${column} = ${first}`;
    case 'in':
    case 'overlaps':
      return condition.values.length === 0 ? sql<SqlBool>`1 = 0` : sql<SqlBool>`${column} in (${sql.join(condition.values)})`;
    case 'contains':
      return sql<SqlBool>`lower(${column}) like ${`%${escapeLike(String(first).toLowerCase())}%`} escape '\\'`;
    case 'notContains':
      return sql<SqlBool>`(${column} is null or lower(${column}) not like ${`%${escapeLike(String(first).toLowerCase())}%`} escape '\\')`;
    case 'between':
      return sql<SqlBool>`${column} >= ${first} and ${column} <= ${second}`;
  }
}

/** Any select over any tables: the three grids query different tables (and findings a derived one). */
type AnySelect<Row = object> = SelectQueryBuilder<any, any, Row>;

/**
 * The number of rows `query` matches and the page of them that `select` picks, sorted by `sort` (columns of
 * `table`) and then by id so pages never overlap; every row when `limit` is absent. `withoutTotal` skips the count
 * (total 0): the batches of a streamed export need none.
 */
export async function countedPage<Row>(
  query: AnySelect,
  select: (query: AnySelect) => AnySelect<Row>,
  table: string,
  criteria: { sort: Array<{ column: string; direction: 'asc' | 'desc' }>; offset: number; limit?: number; withoutTotal?: boolean },
): Promise<{ total: number; rows: Row[] }> {
  const counted = criteria.withoutTotal
    ? undefined
    : (await query.select(sql<number | string>`count(*)`.as('n')).executeTakeFirst()) as { n: number | string } | undefined;
  let rows = select(query);
  for (const s of criteria.sort) rows = rows.orderBy(sql.ref(`${table}.${s.column}`), s.direction);
  rows = rows.orderBy(sql.ref(`${table}.id`), 'asc');
  if (criteria.limit !== undefined) rows = rows.limit(criteria.limit).offset(criteria.offset);
  return { total: Number(counted?.n ?? 0), rows: await rows.execute() };
}

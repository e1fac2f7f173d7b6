// Lists of keys joined to the vulnerability tables (records by key, criteria by product, scores by CVE). On
// PostgreSQL one text array per column read by unnest: a fixed number of parameters, where a VALUES list of
// thousands of them costs a parse, bind and plan that grows with the list (and on a new connection, every time);
// on SQLite one JSON parameter read by json_each, because SQLite compiles a statement for every query and a
// VALUES list of thousands of parameters costs more to compile than to run.
import { sql, type Kysely, type RawBuilder } from 'kysely';

const sqliteByDb = new WeakMap<object, boolean>();

/** Whether the database is SQLite, from the parameter style its query compiler writes ('?' rather than '$1'). */
function isSqlite(db: Kysely<any>): boolean {
  let answer = sqliteByDb.get(db);
  if (answer === undefined) sqliteByDb.set(db, (answer = sql`${0}`.compile(db).sql === '?'));
  return answer;
}

/**
 * A common table expression `name(columns) AS (...)` with one row per entry of `rows` (text values); with
 * `position`, one more column of that name holds the entry's index in `rows` (from 0), so that a result row can
 * be put back beside its entry without a map of keys.
 */
export function listCte(db: Kysely<any>, name: string, columns: string[], rows: Array<Array<string | null>>, position?: string): RawBuilder<unknown> {
  const head = sql.raw(`${name}(${[...columns, ...(position ? [position] : [])].join(', ')})`);
  if (isSqlite(db)) {
    const fields = sql.raw([...columns.map((_, i) => `value ->> ${i}`), ...(position ? ['key'] : [])].join(', '));
    return sql`${head} AS (SELECT ${fields} FROM json_each(${JSON.stringify(rows)}))`;
  }
  const arrays = columns.map((_, i) => sql`${rows.map((r) => r[i] ?? null)}::text[]`);
  if (!position) return sql`${head} AS (SELECT * FROM unnest(${sql.join(arrays)}))`;
  const names = sql.raw(columns.map((_, i) => `c${i}`).join(', '));
  return sql`${head} AS (SELECT ${names}, ordinality - 1 FROM unnest(${sql.join(arrays)}) WITH ORDINALITY AS u(${names}, ordinality))`;
}

// Frozen once released. scan_finding_counts: how many findings each scan holds, by type, severity, KEV and kernel
// verdict, so the findings grid's total reads a few rows per scan instead of counting every finding of a large
// product (169 ms for 100,000 findings; the grid's first page itself takes under 1 ms).
//
// Kept by triggers on `findings`, not by the code that writes findings: every writer (the result writer,
// re-matching's insert/replace/resolve, and anything that inserts rows in SQL, such as tests and benches) keeps
// the counts right without knowing of them, and a count that drifted would be a wrong total, silently. PostgreSQL
// uses statement-level triggers with transition tables (one upsert per statement, grouped), SQLite row triggers.
// The table is filled from the findings already stored.
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';

const KEY = ['scan_id', 'finding_type', 'severity', 'is_kev', 'not_applicable'] as const;
const NOT_APPLICABLE = (row: string) => `case when ${row}.applicability = 'not-applicable' then 1 else 0 end`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scan_finding_counts')
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scans.id').onDelete('cascade'))
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('image_id', 'text', (c) => c.notNull())
    .addColumn('finding_type', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('is_kev', 'integer', (c) => c.notNull())
    .addColumn('not_applicable', 'integer', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_finding_counts_pk', [...KEY])
    .execute();
  await db.schema.createIndex('scan_finding_counts_product').on('scan_finding_counts').columns(['product_id', 'scan_id']).execute();
  await db.schema.createIndex('scan_finding_counts_image').on('scan_finding_counts').columns(['image_id', 'scan_id']).execute();

  await sql.raw(`insert into scan_finding_counts (${KEY.join(', ')}, product_id, image_id, n)
    select scan_id, finding_type, severity, is_kev, ${NOT_APPLICABLE('f')}, min(product_id), min(image_id), count(*)
    from findings f group by scan_id, finding_type, severity, is_kev, ${NOT_APPLICABLE('f')}`).execute(db);

  if (dialectOf(db) === 'postgres') await postgresTriggers(db);
  else await sqliteTriggers(db);
}

/** `rows` (a transition table or NEW/OLD) grouped by the key, added to the counts with `sign`. */
function upsert(rows: string, sign: '+' | '-', alias: string): string {
  return `insert into scan_finding_counts (${KEY.join(', ')}, product_id, image_id, n)
    select scan_id, finding_type, severity, is_kev, ${NOT_APPLICABLE(alias)}, min(product_id), min(image_id), ${sign === '+' ? '' : '-'}count(*)
    from ${rows} ${alias} group by scan_id, finding_type, severity, is_kev, ${NOT_APPLICABLE(alias)}
    on conflict (${KEY.join(', ')}) do update set n = scan_finding_counts.n + excluded.n`;
}

async function postgresTriggers(db: Kysely<any>): Promise<void> {
  // One function per event: a transition table is named in the trigger, and PostgreSQL allows only one event
  // per trigger that references both OLD and NEW tables.
  await sql.raw(`create function scan_finding_counts_insert() returns trigger language plpgsql as $$
    begin ${upsert('new_rows', '+', 'r')}; return null; end $$`).execute(db);
  await sql.raw(`create function scan_finding_counts_delete() returns trigger language plpgsql as $$
    begin ${upsert('old_rows', '-', 'r')}; return null; end $$`).execute(db);
  await sql.raw(`create function scan_finding_counts_update() returns trigger language plpgsql as $$
    begin ${upsert('old_rows', '-', 'r')}; ${upsert('new_rows', '+', 'r')}; return null; end $$`).execute(db);
  await sql.raw(`create trigger scan_finding_counts_insert after insert on findings referencing new table as new_rows
    for each statement execute function scan_finding_counts_insert()`).execute(db);
  await sql.raw(`create trigger scan_finding_counts_delete after delete on findings referencing old table as old_rows
    for each statement execute function scan_finding_counts_delete()`).execute(db);
  await sql.raw(`create trigger scan_finding_counts_update after update on findings referencing old table as old_rows new table as new_rows
    for each statement execute function scan_finding_counts_update()`).execute(db);
}

async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  // SQLite has row triggers only; NEW and OLD are rows, not tables, so each is one grouped row of one.
  const one = (row: 'new' | 'old', sign: '+' | '-') => `insert into scan_finding_counts (${KEY.join(', ')}, product_id, image_id, n)
    values (${row}.scan_id, ${row}.finding_type, ${row}.severity, ${row}.is_kev, ${NOT_APPLICABLE(row)}, ${row}.product_id, ${row}.image_id, ${sign}1)
    on conflict (${KEY.join(', ')}) do update set n = n + excluded.n`;
  await sql.raw(`create trigger scan_finding_counts_insert after insert on findings begin ${one('new', '+')}; end`).execute(db);
  await sql.raw(`create trigger scan_finding_counts_delete after delete on findings begin ${one('old', '-')}; end`).execute(db);
  await sql.raw(`create trigger scan_finding_counts_update after update of scan_id, finding_type, severity, is_kev, applicability on findings
    begin ${one('old', '-')}; ${one('new', '+')}; end`).execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migration 0015-scan-finding-counts cannot be reverted');
}

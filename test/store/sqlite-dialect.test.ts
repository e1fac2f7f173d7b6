// The SQLite connection reads rows as arrays and builds the objects itself: the rows must be what better-sqlite3's
// own object rows are (names, order, duplicate names, values of every type), for queries and streams alike. It keeps
// its prepared statements: each SQL text is prepared once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ImmediateSqliteDialect } from '../../src/store/sqlite-dialect.js';

describe('SQLite dialect rows', () => {
  let dir: string;
  let native: BetterSqlite3.Database;
  let db: Kysely<any>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'firmscope-sqlite-dialect-'));
    native = new BetterSqlite3(join(dir, 'test.db'));
    db = new Kysely<any>({ dialect: new ImmediateSqliteDialect(native) });
    await sql`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, blob BLOB, note TEXT)`.execute(db);
  });

  afterAll(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('returns the inserted row count and id, and rows equal to better-sqlite3 object rows', async () => {
    const inserted = await db.insertInto('t').values([
      { name: 'a', score: 1.5, blob: Buffer.from([1, 2]), note: null },
      { name: 'b', score: null, blob: null, note: 'x' },
    ]).executeTakeFirstOrThrow();
    expect(inserted.numInsertedOrUpdatedRows).toBe(2n);
    expect(inserted.insertId).toBe(2n);

    const query = 'SELECT id, name, score, blob, note, name AS name, 7 AS seven FROM t ORDER BY id';
    const { rows } = await sql.raw(query).execute(db);
    expect(rows).toEqual(native.prepare(query).all());
    expect(rows[0]).toEqual({ id: 1, name: 'a', score: 1.5, blob: Buffer.from([1, 2]), note: null, seven: 7 });
    expect(Object.keys(rows[0] as object)).toEqual(Object.keys(native.prepare(query).get() as object));
  });

  it('keeps a column named __proto__ as an own property, not the prototype', async () => {
    const { rows } = await sql<Record<string, unknown>>`SELECT 1 AS "__proto__", 2 AS b`.execute(db);
    const row = rows[0]!;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe(1);
    expect(row.b).toBe(2);
  });

  it('streams select queries row by row with the same rows', async () => {
    const streamed = [];
    for await (const row of db.selectFrom('t').select(['id', 'name']).orderBy('id').stream()) streamed.push(row);
    expect(streamed).toEqual([{ id: 1, name: 'a' }, { id: 2, name: 'b' }]);
  });

  it('counts changed rows of updates and deletes, and runs transactions', async () => {
    const updated = await db.updateTable('t').set({ note: 'y' }).where('id', '>', 0).executeTakeFirstOrThrow();
    expect(updated.numUpdatedRows).toBe(2n);
    await expect(db.transaction().execute(async (trx) => {
      await trx.deleteFrom('t').where('id', '=', 1).execute();
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect((await db.selectFrom('t').select('id').execute()).length).toBe(2);
    const deleted = await db.deleteFrom('t').where('id', '=', 1).executeTakeFirstOrThrow();
    expect(deleted.numDeletedRows).toBe(1n);
  });

  it('prepares each statement once, for queries and streams alike', async () => {
    const prepare = vi.spyOn(native, 'prepare');
    try {
      const query = () => db.selectFrom('t').select(['id', 'note']).where('id', '>', 0);
      for (let i = 0; i < 3; i++) expect(await query().execute()).toEqual([{ id: 2, note: 'y' }]);
      const streamed = [];
      for await (const row of query().stream()) streamed.push(row);
      expect(streamed).toEqual([{ id: 2, note: 'y' }]);
      expect(await query().execute()).toEqual([{ id: 2, note: 'y' }]);
      expect(prepare.mock.calls.filter(([text]) => String(text).includes('"note" from "t"')).length).toBe(1);
      // a PRAGMA may take effect when SQLite prepares it, not when it runs again: each one is prepared every time
      for (let i = 0; i < 2; i++) await sql`PRAGMA busy_timeout = 10000`.execute(db);
      expect(prepare.mock.calls.filter(([text]) => String(text) === 'PRAGMA busy_timeout = 10000').length).toBe(2);
    } finally {
      prepare.mockRestore();
    }
  });
});

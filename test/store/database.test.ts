import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { migrations } from '../../src/store/migrations/index.js';
import { describeEachDatabase, openTestDatabase } from '../support/databases.js';

describeEachDatabase('openDatabase', (get) => {
  it('runs every migration once and records it', async () => {
    const { db } = get();
    const rows = await db
      .selectFrom('kysely_migration' as never)
      .select(sql<string>`name`.as('name'))
      .orderBy(sql`name`)
      .execute();
    expect(rows.map((r) => r.name)).toEqual(migrations.map(([name]) => name).sort());
  });

  it('re-opening an up-to-date database is a no-op', async () => {
    const { url, dataDir } = get();
    const again = await openDatabase({ url, dataDir });
    try {
      const count = await again.db.selectFrom('organisations').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(0);
    } finally {
      await again.close();
    }
  });

  it('stores and reads back text, integer, bigint and double columns with their JS types', async () => {
    const { db } = get();
    const now = new Date().toISOString();
    await db.insertInto('organisations').values({ id: 'O1', name: 'default', create_time: now }).execute();
    await db
      .insertInto('products')
      .values({ id: 'P1', org_id: 'O1', name: 'p', description: null, author_id: 'U', is_archived: 0, create_time: now, update_time: now })
      .execute();
    await db
      .insertInto('images')
      .values({
        id: 'I1', product_id: 'P1', org_id: 'O1', name: 'i', version: null, file_name: 'f.bin', blob_key: 'k',
        size: 5_000_000_000, sha256: 'a', sha1: 'b', md5: 'c', detected_type: null, author_id: 'U', is_archived: 1,
        create_time: now, update_time: now,
      })
      .execute();
    const image = await db.selectFrom('images').selectAll().where('id', '=', 'I1').executeTakeFirstOrThrow();
    expect(image.size).toBe(5_000_000_000);
    expect(image.is_archived).toBe(1);
    expect(image.create_time).toBe(now);
  });

  it('rejects a row that breaks a foreign key', async () => {
    const { db } = get();
    const now = new Date().toISOString();
    await expect(
      db.insertInto('products')
        .values({ id: 'P2', org_id: 'nope', name: 'p', description: null, author_id: 'U', is_archived: 0, create_time: now, update_time: now })
        .execute(),
    ).rejects.toThrow();
  });
});

it('a bad PostgreSQL URL fails with the reason', async () => {
  await expect(openDatabase({ url: 'postgres://nobody@127.0.0.1:1/none', dataDir: '/tmp' })).rejects.toThrow();
});

// SQLite write transactions begin IMMEDIATE: one that reads before it writes waits for another connection's write
// lock (without stopping the event loop, so that connection, here in the same process, can finish), then reads
// what it committed. A DEFERRED one read a stale snapshot and failed at its first write with "database is locked".
it('a SQLite write transaction waits for another connection\'s, then reads what it committed', async () => {
  const first = await openTestDatabase('sqlite');
  const second = await openDatabase({ dataDir: first.dataDir });
  const now = new Date().toISOString();
  try {
    let locked = () => {};
    const holding = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const firstDone = first.db.transaction().execute(async (trx) => {
      await trx.insertInto('organisations').values({ id: 'W1', name: 'first', create_time: now }).execute();
      locked();
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    await holding;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const seen = await second.db.transaction().execute(async (trx) => {
      const rows = await trx.selectFrom('organisations').select('id').execute();
      await trx.insertInto('organisations').values({ id: 'W2', name: 'second', create_time: now }).execute();
      return rows.map((r) => r.id);
    }).finally(() => clearInterval(timer));
    await firstDone;
    expect(seen).toEqual(['W1']);
    expect(ticks, 'timer ticks while the second transaction waited').toBeGreaterThan(5);
    expect((await first.db.selectFrom('organisations').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual(['W1', 'W2']);
  } finally {
    await second.close();
    await first.close();
  }
});

it('maps the SQLite file (the service and the offline scan cache alike)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-mmap-'));
  try {
    const opened = await openDatabase({ dataDir, migrations: [] });
    try {
      const { rows } = await sql<{ mmap_size: number }>`PRAGMA mmap_size`.execute(opened.db);
      expect(rows[0]?.mmap_size).toBe(2147418112);
    } finally {
      await opened.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

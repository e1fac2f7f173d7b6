// Migration names are numbered per area (core 00xx, vulnerabilities 01xx): a core migration added after a
// database already ran 0100 sorts before it and must still apply on that database, in both dialects.
import { sql, type Kysely, type Migration } from 'kysely';
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { migrations } from '../../src/store/migrations/index.js';
import { describeEachDatabase } from '../support/databases.js';

const applied = async (db: Kysely<any>) =>
  (await db.selectFrom('kysely_migration').select(sql<string>`name`.as('name')).orderBy(sql`name`).execute()).map((r) => r.name);

const laterCore: Migration = {
  async up(db) {
    await db.schema.createTable('migration_order_probe').addColumn('id', 'text', (c) => c.primaryKey()).execute();
  },
};

describeEachDatabase('migration order', (get) => {
  it('applies a new migration that sorts before an applied one on an existing database', async () => {
    const { db, url, dataDir } = get();
    expect(migrations.map(([name]) => name)).toContain('0100-vulnerabilities');
    expect(await applied(db)).toEqual(migrations.map(([name]) => name).sort());

    // '0002-…' < '0100-vulnerabilities', which the database already ran
    const extended: Array<[string, Migration]> = [...migrations, ['0002-probe', laterCore]];
    expect('0002-probe' < '0100-vulnerabilities').toBe(true);
    const again = await openDatabase({ url, dataDir, migrations: extended });
    try {
      await again.db.insertInto('migration_order_probe' as never).values({ id: 'x' } as never).execute();
      expect(await again.db.selectFrom('migration_order_probe' as never).selectAll().execute()).toEqual([{ id: 'x' }]);
      expect(await applied(again.db)).toEqual(extended.map(([name]) => name).sort());
    } finally {
      await again.close();
    }

    // opening once more is a no-op: the probe migration is not run twice
    const third = await openDatabase({ url, dataDir, migrations: extended });
    try {
      expect(await third.db.selectFrom('migration_order_probe' as never).selectAll().execute()).toEqual([{ id: 'x' }]);
    } finally {
      await third.close();
    }
  });
});

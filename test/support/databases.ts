// Runs a store suite on every dialect: SQLite in a temp folder always; PostgreSQL when
// FIRMSCOPE_TEST_DATABASE_URL is set, each run in a fresh schema so runs never collide. Without the URL the
// PostgreSQL suite is skipped with a visible notice, or fails when FIRMSCOPE_REQUIRE_POSTGRES=1 (CI).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openDatabase, type Dialect, type OpenedDatabase } from '../../src/store/database.js';

export interface TestDatabase extends OpenedDatabase {
  /** What to pass as DATABASE_URL to a server or worker using the same database (undefined for SQLite). */
  url: string | undefined;
  dataDir: string;
}

const pgBase = process.env.FIRMSCOPE_TEST_DATABASE_URL;
const requirePostgres = process.env.FIRMSCOPE_REQUIRE_POSTGRES === '1';
let noticeShown = false;

export function testDialects(): Dialect[] {
  return pgBase || requirePostgres ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** A fresh PostgreSQL schema on the test server, as a URL whose connections use it; drop() removes it. */
export async function freshPostgresUrl(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!pgBase) throw new Error('FIRMSCOPE_TEST_DATABASE_URL is not set but FIRMSCOPE_REQUIRE_POSTGRES=1 requires PostgreSQL tests');
  const schema = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: pgBase });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  const url = new URL(pgBase);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: pgBase });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Opens a fresh, migrated database of the given dialect; close() also removes it. */
export async function openTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-db-'));
  if (dialect === 'sqlite') {
    const opened = await openDatabase({ dataDir });
    return {
      ...opened,
      url: undefined,
      dataDir,
      async close() {
        await opened.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const fresh = await freshPostgresUrl();
  const opened = await openDatabase({ url: fresh.url, dataDir });
  return {
    ...opened,
    url: fresh.url,
    dataDir,
    async close() {
      await opened.close();
      await fresh.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `describe` once per dialect; `get()` returns the suite's database inside tests. */
export function describeEachDatabase(title: string, body: (get: () => TestDatabase) => void): void {
  if (!pgBase && !requirePostgres && !noticeShown) {
    noticeShown = true;
    console.warn('NOTICE: FIRMSCOPE_TEST_DATABASE_URL is unset: PostgreSQL store tests are skipped');
  }
  for (const dialect of ['sqlite', 'postgres'] as const) {
    if (dialect === 'postgres' && !pgBase) {
      if (requirePostgres) {
        describe(`${title} [postgres]`, () => {
          it('needs PostgreSQL (FIRMSCOPE_REQUIRE_POSTGRES=1)', () => {
            throw new Error('FIRMSCOPE_REQUIRE_POSTGRES=1 but FIRMSCOPE_TEST_DATABASE_URL is not set');
          });
        });
      } else {
        describe.skip(`${title} [postgres] (skipped: FIRMSCOPE_TEST_DATABASE_URL unset)`, () => body(() => undefined as never));
      }
      continue;
    }
    describe(`${title} [${dialect}]`, () => {
      let database: TestDatabase | undefined;
      beforeAll(async () => {
        database = await openTestDatabase(dialect);
      });
      afterAll(async () => {
        await database?.close();
      });
      body(() => {
        if (!database) throw new Error('test database is not open');
        return database;
      });
    });
  }
}

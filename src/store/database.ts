// Opens the service database, SQLite (embedded default, WAL) or PostgreSQL (`postgres://` URL), and brings its
// schema up to date with the one list of migrations. Both dialects share one Kysely query layer.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, sql, PostgresDialect, SqliteDialect, type Migration, type MigrationProvider } from 'kysely';
import pg from 'pg';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** `postgres://…` or `postgresql://…` for PostgreSQL; absent (or `sqlite:` / a file path) for SQLite. */
  url?: string;
  /** Folder of the SQLite file `firmscope.db` when no PostgreSQL URL is given. */
  dataDir: string;
  /** The migrations to apply: the project's list unless a test extends it. */
  migrations?: Array<[name: string, migration: Migration]>;
}

const PG_INT8 = 20;
const PG_NUMERIC = 1700;

export async function openDatabase(options: OpenDatabaseOptions): Promise<OpenedDatabase> {
  const url = options.url?.trim();
  const opened = url && /^postgres(ql)?:\/\//i.test(url) ? openPostgres(url) : openSqlite(sqlitePath(url, options.dataDir));
  try {
    await migrate(opened, options.migrations ?? migrations);
  } catch (error) {
    await opened.close();
    throw error;
  }
  return opened;
}

/** Where the SQLite database lives: the `sqlite:` URL's path, or firmscope.db in the data folder. */
export function sqlitePath(url: string | undefined, dataDir: string): string {
  if (url) {
    const path = url.replace(/^sqlite:(\/\/)?/i, '');
    if (path) return path;
  }
  return join(dataDir, 'firmscope.db');
}

function openSqlite(path: string): OpenedDatabase {
  mkdirSync(dirname(path), { recursive: true });
  const database = new BetterSqlite3(path);
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 10000');
  database.pragma('foreign_keys = ON');
  database.pragma('synchronous = NORMAL');
  // Reads straight from the mapped file (up to SQLite's 2 GB default maximum) instead of a pread per page: matching
  // an inventory looks up thousands of records and criteria spread over the whole vulnerability database, and a
  // new connection (a scan thread's) starts with an empty page cache.
  database.pragma('mmap_size = 2147418112');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

function openPostgres(url: string): OpenedDatabase {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // Counts and sizes come back as numbers (they stay far below 2^53), in this pool only.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === PG_INT8 || oid === PG_NUMERIC ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

class ListProvider implements MigrationProvider {
  constructor(private readonly list: Array<[name: string, migration: Migration]>) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(this.list);
  }
}

async function migrate({ db, dialect }: OpenedDatabase, list: Array<[name: string, migration: Migration]>): Promise<void> {
  // On PostgreSQL the bookkeeping tables live in the connection's own schema (search_path), so databases
  // in different schemas of one server never see each other's migrations.
  const schema =
    dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  // Migration names are numbered per area (core 00xx, vulnerabilities 01xx), so a later core migration such as
  // 0002 sorts before the already-applied 0100. Kysely refuses that by default ("corrupted migrations"); allowing
  // unordered migrations runs every pending one (in name order) instead, whatever was applied before it.
  const migrator = new Migrator({
    db, provider: new ListProvider(list), allowUnorderedMigrations: true, ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`database migration ${failed ?? ''} failed: ${reason}`);
  }
}

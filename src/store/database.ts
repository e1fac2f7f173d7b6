// Opens the service database, SQLite (embedded default, WAL) or PostgreSQL (`postgres://` URL), and brings its
// schema up to date with the one list of migrations. Both dialects share one Kysely query layer.
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  Kysely, Migrator, sql, PostgresAdapter, PostgresDialect, type MigrationLockOptions, PostgresIntrospector, type DatabaseIntrospector, type DatabaseMetadataOptions, type TableMetadata,
  type Migration, type MigrationProvider,
} from 'kysely';
import type pg from 'pg';
import { ImmediateSqliteDialect, SQLITE_BUSY_TIMEOUT_MS } from './sqlite-dialect.js';
import { sqlitePath } from './sqlite-path.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
  /**
   * PostgreSQL only: calls `onNotify` with its payload for each NOTIFY on `channel`, on a connection of its own
   * (reopened after an error, then called without a payload: anything may have been missed); resolves once
   * listening, to the function that stops.
   */
  listen?(channel: string, onNotify: (payload?: string) => void): Promise<() => Promise<void>>;
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
  const opened = url && /^postgres(ql)?:\/\//i.test(url) ? await openPostgres(url) : openSqlite(sqlitePath(url, options.dataDir));
  try {
    // loaded on use, as pg is: an offline scan's cache (cli/scan.ts) brings its one migration, and SQLite needs no pg
    await migrate(opened, options.migrations ?? (await import('./migrations/index.js')).migrations);
  } catch (error) {
    await opened.close();
    throw error;
  }
  return opened;
}

export { sqlitePath } from './sqlite-path.js';

let addonPath: string | null | undefined;
/**
 * better-sqlite3's addon where its install builds it. Without it the package finds the addon through `bindings`,
 * which tries a dozen paths and reads package files on the way: a first open took 4.1 ms that way against 1.2 ms
 * (2026-12-02). Undefined (the package's own search) when the addon is elsewhere.
 */
function sqliteAddon(): string | undefined {
  if (addonPath === undefined) {
    const path = join(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
    addonPath = existsSync(path) ? path : null;
  }
  return addonPath ?? undefined;
}

function openSqlite(path: string): OpenedDatabase {
  mkdirSync(dirname(path), { recursive: true });
  const database = new BetterSqlite3(path, { nativeBinding: sqliteAddon() });
  database.pragma('journal_mode = WAL');
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  database.pragma('foreign_keys = ON');
  database.pragma('synchronous = NORMAL');
  // Reads straight from the mapped file (up to SQLite's 2 GB default maximum) instead of a pread per page: matching
  // an inventory looks up thousands of records and criteria spread over the whole vulnerability database, and a
  // new connection (a scan thread's) starts with an empty page cache. So does the offline scan's analysis cache
  // (cli/scan.ts), whose lookups of a next firmware version read ~20,000 rows: 30 ms less of the engine's thread
  // than through SQLite's own page cache, the scan's peak memory the same (2026-12-02).
  database.pragma('mmap_size = 2147418112');
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect(database) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/**
 * Kysely's PostgreSQL migration lock is one advisory lock for the whole server, so databases in different schemas
 * (tests, tenants) migrate one at a time, and a slow one holds up all others. The lock here is per schema: the
 * two-key form (a namespace and the schema's hash) lives in its own key space, apart from the service's
 * single-key advisory locks.
 */
class SchemaLockingPostgresDialect extends PostgresDialect {
  override createAdapter(): PostgresAdapter {
    return new SchemaLockingPostgresAdapter();
  }

  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new RetryingPostgresIntrospector(db);
  }
}

/** Migrations run in one transaction (transactional DDL), so the lock is a transaction lock: nothing to release. */
class SchemaLockingPostgresAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>, options: MigrationLockOptions): Promise<void> {
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_NAMESPACE}, hashtext(${options.lockTableSchema ?? 'public'}))`.execute(db);
  }

  override async releaseMigrationLock(): Promise<void> {}
}

/**
 * Kysely's table listing (which the migrator uses to see whether its own tables exist) reads every schema of the
 * database and looks tables up again by name (privileges by schema name, serial sequences by table and column
 * name); a schema, table or column another owner drops meanwhile (tests drop theirs) makes it fail with
 * invalid_schema_name, undefined_table or undefined_column (each seen once in CI: another test's schema, dropped
 * during the listing; the last as 'column "summary" of relation "scans" does not exist'). The catalog read again
 * no longer has it.
 */
export class RetryingPostgresIntrospector extends PostgresIntrospector {
  override async getTables(options?: DatabaseMetadataOptions): Promise<TableMetadata[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await super.getTables(options);
      } catch (error) {
        if (!DROPPED_MEANWHILE.has((error as { code?: string }).code ?? '') || attempt === 5) throw error;
      }
    }
  }
}
/** invalid_schema_name, undefined_table, undefined_column */
const DROPPED_MEANWHILE = new Set(['3F000', '42P01', '42703']);
const MIGRATION_LOCK_NAMESPACE = 0x46534d; // 'FSM'

/** The dialect of a database handle or transaction (for the few statements that differ, such as row locks). */
export function dialectOf(db: Kysely<any>): Dialect {
  return db.introspection instanceof PostgresIntrospector ? 'postgres' : 'sqlite';
}

async function openPostgres(url: string): Promise<OpenedDatabase> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // Counts and sizes come back as numbers (they stay far below 2^53), in this pool only.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === PG_INT8 || oid === PG_NUMERIC ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  const db = new Kysely<Database>({ dialect: new SchemaLockingPostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy(), listen: (channel, onNotify) => listenOn(pg, url, channel, onNotify) };
}

/** LISTEN on a dedicated client (a pooled one would be handed to queries); a lost connection is reopened. */
async function listenOn(pg: typeof import('pg').default, url: string, channel: string, onNotify: (payload?: string) => void): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload);
    });
    next.on('error', () => {
      // reopened shortly; meanwhile the workers poll, and a wake-up on reconnecting catches what was missed
      void next.end().catch(() => undefined);
      if (client === next) client = undefined;
      reconnect();
    });
    await next.connect();
    await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    if (stopped) await next.end();
    else client = next;
  };
  const reconnect = (): void => {
    if (stopped) return;
    clearTimeout(retry);
    retry = setTimeout(() => void connect().then(() => onNotify(), reconnect), 1000).unref();
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };
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

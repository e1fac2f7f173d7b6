// The SQLite dialect of the service database: Kysely's better-sqlite3 dialect with transactions that begin
// IMMEDIATE (waiting for the write lock without blocking the event loop), and rows read as arrays and turned into
// objects in JavaScript.
import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, SelectQueryNode, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';

/** How long a SQLite writer waits for another connection's write lock before giving up with SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 10_000;

/**
 * Every SQLite transaction begins IMMEDIATE, taking the write lock before its first read. The project's
 * transactions all write, and most read first (re-match: existing findings; import: stored versions; store:
 * delete then insert). A DEFERRED one would take a read snapshot, then fail at its first write with SQLITE_BUSY at
 * once whenever another connection wrote meanwhile: in WAL mode the busy timeout cannot help (the snapshot is
 * stale; waiting would not make it current), so a concurrent re-match or import failed with "database is locked".
 * IMMEDIATE makes the lock the first thing waited for, and all reads then see the latest data. A retry of the
 * whole transaction on SQLITE_BUSY would also work, but every caller would need to be safe to run twice; waiting
 * at BEGIN needs nothing from them.
 * The wait itself is asynchronous: with busy_timeout, better-sqlite3 would sleep inside the call and stop the
 * whole event loop, including another connection of the same process that holds the lock and can only release
 * it by running on (two connections of one process would then fail after the full timeout), and an HTTP server
 * that stops answering. So BEGIN IMMEDIATE is tried without busy timeout and retried after short sleeps, for as
 * long as busy_timeout would have waited. Statements outside transactions keep the busy timeout.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly database: BetterSqlite3.Database) {
    super({ database });
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.database);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  private readonly connection: ArrayRowsConnection;

  constructor(private readonly database: BetterSqlite3.Database) {
    super({ database });
    this.connection = new ArrayRowsConnection(database);
  }

  /** Kysely's connection mutex (one connection at a time), handing out the connection below. */
  override async acquireConnection(): Promise<DatabaseConnection> {
    await super.acquireConnection();
    return this.connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const deadline = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
    // The connection is held (Kysely's mutex) until the transaction ends, so nothing else runs on it meanwhile.
    this.database.pragma('busy_timeout = 0');
    try {
      for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
        try {
          await connection.executeQuery(CompiledQuery.raw('begin immediate'));
          return;
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    } finally {
      this.database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    }
  }
}

/** Column lists whose row makers are kept. */
const MAKERS_KEPT = 1000;
/** Prepared statements kept, by their SQL. */
const STATEMENTS_KEPT = 1000;
/**
 * SQLite may carry out a PRAGMA when it prepares it rather than when it runs it: a kept `busy_timeout = 0` run
 * again after another busy_timeout pragma left the timeout as that one set it (and a transaction then slept inside
 * SQLite for the whole timeout). PRAGMAs are prepared every time.
 */
const PRAGMA = /^\s*pragma\b/i;

type RowMaker = (values: unknown[]) => Record<string, unknown>;

/**
 * Kysely's better-sqlite3 connection, but rows come back as arrays (better-sqlite3's raw mode) and are turned into
 * objects by a function compiled once per column list. better-sqlite3 builds an object row through V8's C++ API,
 * one property at a time, which costs twice what the array and an object literal do: matching an inventory reads
 * thousands of criteria and records, and half its reading time went there.
 */
class ArrayRowsConnection implements DatabaseConnection {
  private readonly makers = new Map<string, RowMaker>();
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(private readonly database: BetterSqlite3.Database) {}

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = compiledQuery;
    const statement = this.statement(sql);
    try {
      return this.execute<R>(statement, parameters);
    } catch (error) {
      // a statement that failed (BEGIN IMMEDIATE refused with SQLITE_BUSY, a constraint) is prepared anew next time
      this.statements.delete(sql);
      throw error;
    }
  }

  private execute<R>(statement: BetterSqlite3.Statement, parameters: readonly unknown[]): Promise<QueryResult<R>> {
    if (statement.reader) {
      const make = this.rowMaker(statement);
      const values = statement.raw(true).all(parameters) as unknown[][];
      const rows = new Array<R>(values.length);
      for (let i = 0; i < values.length; i++) rows[i] = make(values[i]!) as R;
      return Promise.resolve({ rows });
    }
    const { changes, lastInsertRowid } = statement.run(parameters);
    return Promise.resolve({
      numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
      insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
      rows: [],
    });
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const { sql, parameters, query } = compiledQuery;
    if (!SelectQueryNode.is(query)) throw new Error('Sqlite driver only supports streaming of select queries');
    const statement = this.statement(sql);
    const make = this.rowMaker(statement);
    for (const values of statement.raw(true).iterate(parameters) as IterableIterator<unknown[]>) yield { rows: [make(values) as R] };
  }

  /**
   * The prepared statement for `sql`, kept for the next time: SQLite compiles every statement it prepares, and the
   * analysis cache and the service run the same few hundred statements over and over (preparing took ~50 ms of a
   * scan's SQLite time). A kept statement still iterating rows is not handed out again (better-sqlite3 refuses any
   * other statement on a connection while one iterates, so that call fails as it would have anyway).
   */
  private statement(sql: string): BetterSqlite3.Statement {
    const kept = this.statements.get(sql);
    if (kept && !kept.busy) return kept;
    const statement = this.database.prepare(sql);
    if (!kept && !PRAGMA.test(sql)) {
      // the service's statements are few (its queries'), but lists of parameters make more: bounded all the same
      if (this.statements.size >= STATEMENTS_KEPT) this.statements.clear();
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * The object maker for a statement's columns: an object literal with the columns in order (a later column of
   * the same name wins, as in better-sqlite3's own rows). A column named `__proto__` would set the prototype in a
   * literal, so such a list is built property by property.
   */
  private rowMaker(statement: BetterSqlite3.Statement): RowMaker {
    const names = statement.columns().map((c) => c.name);
    const key = names.join('\0');
    let make = this.makers.get(key);
    if (!make) {
      make = names.includes('__proto__')
        ? (values) => {
            const row: Record<string, unknown> = {};
            names.forEach((name, i) => Object.defineProperty(row, name, { value: values[i], enumerable: true, writable: true, configurable: true }));
            return row;
          }
        : (new Function('v', `return { ${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')} };`) as RowMaker);
      // the service's column lists are few (its queries'), but nothing else bounds them
      if (this.makers.size >= MAKERS_KEPT) this.makers.clear();
      this.makers.set(key, make);
    }
    return make;
  }
}

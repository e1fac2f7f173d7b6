// The engine's analysis cache (engine/analysis-cache.ts) of one organisation, in the analysis_cache table (0016):
// reads and writes are scoped to the organisation it was made for, so no scan ever reuses (or times) another
// tenant's results. Rows used by a read are marked used (at most once per REFRESH_AFTER_MS: marking every row a
// scan reads rewrote tens of thousands of rows per scan, which cost a rescan or the next version of an image
// about as much as the reads); when the organisation's rows pass the byte cap after a write, the least recently used
// go first, down to LOW_WATER of the cap. The organisation's bytes are counted as rows are written and evicted
// (analysis_cache_usage, 0018) instead of summed over every row at each write. SQLite and PostgreSQL alike.
import type { Kysely } from 'kysely';
import type { AnalysisCache } from '../engine/analysis-cache.js';
import { nowIso } from '../ids.js';
import type { Database } from './schema.js';

/** Keys per statement (well under SQLite's and PostgreSQL's bound-parameter limits). */
const KEYS_PER_QUERY = 500;
/** Rows per insert: 6 parameters each. */
const ROWS_PER_INSERT = 200;
/** A row read again within this time of its last mark keeps that mark: eviction is by the hour, not the moment. */
export const REFRESH_AFTER_MS = 60 * 60 * 1000;
/**
 * What eviction brings an organisation's bytes down to, as a share of the cap: a cache at its cap would otherwise
 * evict, and sum its rows, at every write.
 */
export const LOW_WATER = 0.9;

const chunks = <T>(items: readonly T[], size: number): T[][] => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

export class AnalysisCacheRepository implements AnalysisCache {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly orgId: string,
    /** The organisation's cap: the sum of its values' sizes, in bytes. */
    private readonly maxBytes: number,
    /** How old a row's mark of use must be for a read to renew it (tests: 0, every read). */
    private readonly refreshAfterMs = REFRESH_AFTER_MS,
  ) {}

  /** The values of the keys it has; they count as used now (one transaction: one commit for SQLite). */
  async get(keys: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const now = nowIso();
    const stale = new Date(Date.now() - this.refreshAfterMs).toISOString();
    const read = async (db: Kysely<Database>) => {
      // keys in one order in every transaction: two scans touching the same rows never wait on each other in a cycle
      for (const part of chunks([...new Set(keys)].sort(), KEYS_PER_QUERY)) {
        const rows = await db.selectFrom('analysis_cache').select(['key', 'value', 'last_used_at']).where('org_id', '=', this.orgId).where('key', 'in', part).execute();
        for (const row of rows) found.set(row.key, row.value);
        const renewed = rows.filter((r) => this.refreshAfterMs === 0 || r.last_used_at < stale).map((r) => r.key);
        if (renewed.length) {
          await db.updateTable('analysis_cache').set({ last_used_at: now }).where('org_id', '=', this.orgId).where('key', 'in', renewed).execute();
        }
      }
    };
    await (this.db.isTransaction ? read(this.db) : this.db.transaction().execute(read));
    return found;
  }

  async put(entries: ReadonlyArray<readonly [key: string, value: string]>): Promise<void> {
    const now = nowIso();
    const latest = new Map(entries); // a key written twice keeps its last value
    const rows = [...latest]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) // one lock order for concurrent writers
      .map(([key, value]) => ({ org_id: this.orgId, key, value, bytes: Buffer.byteLength(value), created_at: now, last_used_at: now }))
      .filter((row) => row.bytes <= this.maxBytes);
    if (rows.length === 0) return;
    const write = async (db: Kysely<Database>) => {
      await this.counted(db); // made from the rows before this write, the first time
      for (const part of chunks(rows, ROWS_PER_INSERT)) {
        await db.insertInto('analysis_cache').values(part)
          .onConflict((oc) => oc.columns(['org_id', 'key']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), bytes: eb.ref('excluded.bytes'), last_used_at: eb.ref('excluded.last_used_at') })))
          .execute();
      }
      // a row that replaced one counts whole: the count errs high, and eviction sums the rows before it removes any
      await this.addCounted(db, rows.reduce((n, row) => n + row.bytes, 0));
      await this.evict(db);
    };
    await (this.db.isTransaction ? write(this.db) : this.db.transaction().execute(write));
  }

  /** The organisation's total size of cached values, in bytes: the sum of its rows. */
  async totalBytes(db: Kysely<Database> = this.db): Promise<number> {
    const row = await db.selectFrom('analysis_cache').where('org_id', '=', this.orgId).select((eb) => eb.fn.sum<number | string | bigint>('bytes').as('n')).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** The organisation's counted bytes (at least the rows' sum), made from that sum when it has no count yet. */
  private async counted(db: Kysely<Database>): Promise<number> {
    const row = await db.selectFrom('analysis_cache_usage').select('bytes').where('org_id', '=', this.orgId).executeTakeFirst();
    if (row) return Number(row.bytes);
    const total = await this.totalBytes(db);
    await db.insertInto('analysis_cache_usage').values({ org_id: this.orgId, bytes: total }).onConflict((oc) => oc.column('org_id').doNothing()).execute();
    return total;
  }

  /** Adds to the count (a difference: concurrent writers' additions are kept). */
  private async addCounted(db: Kysely<Database>, bytes: number): Promise<void> {
    if (bytes === 0) return;
    await db.updateTable('analysis_cache_usage').set((eb) => ({ bytes: eb('bytes', '+', bytes) })).where('org_id', '=', this.orgId).execute();
  }

  /**
   * When the count passes the cap: the rows are summed (the count errs high), the count set right, and the least
   * recently used rows removed until the organisation holds at most LOW_WATER of its cap.
   */
  private async evict(db: Kysely<Database>): Promise<void> {
    const counted = await this.counted(db);
    if (counted <= this.maxBytes) return;
    const total = await this.totalBytes(db);
    let excess = total > this.maxBytes ? total - Math.floor(this.maxBytes * LOW_WATER) : 0;
    let removed = 0;
    while (excess > 0) {
      const oldest = await db.selectFrom('analysis_cache').select(['key', 'bytes']).where('org_id', '=', this.orgId)
        .orderBy('last_used_at').orderBy('key').limit(KEYS_PER_QUERY).execute();
      if (oldest.length === 0) break;
      const gone: string[] = [];
      for (const row of oldest) {
        if (excess <= 0) break;
        gone.push(row.key);
        excess -= Number(row.bytes);
        removed += Number(row.bytes);
      }
      await db.deleteFrom('analysis_cache').where('org_id', '=', this.orgId).where('key', 'in', gone).execute();
    }
    // as a difference from what was read, so that another writer's addition meanwhile stays counted
    await this.addCounted(db, total - removed - counted);
  }
}

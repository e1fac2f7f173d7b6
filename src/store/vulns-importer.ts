// The vulnerability database in the service's store, written: feed imports (readFeeds or a sync) and the feeds'
// dates and cursors, and the database's status. Each record is written in its own transaction (never
// half-updated); re-importing the same data changes nothing; a record with a newer `modified` replaces the older
// one. KEV and EPSS rows are upserted in batches. Every change also requests a re-match (vuln-rematch-request.ts).
import { sql, type Kysely } from 'kysely';
import type { EpssEntry } from '../engine/vulns/epss.importer.js';
import type { FeedItem, FeedName } from '../engine/vulns/feed-reader.js';
import { kevReplaces, type KevEntry } from '../engine/vulns/kev.importer.js';
import type { PutResult } from '../engine/vulns/memory-source.js';
import type { VulnerabilityRecord } from '../engine/vulns/source.js';
import { nowIso } from '../ids.js';
import type { Database } from './schema.js';
import { requestRematch } from './vuln-rematch-request.js';
import { lockVulnerabilityWrites, writeRecords } from './vulns-record-writer.js';

export interface ImportSummary {
  inserted: number;
  updated: number;
  unchanged: number;
  kev: number;
  epss: number;
  errors: Array<{ file: string; record?: string; message: string }>;
  /** Ids of vulnerabilities whose data changed (new or replaced records, KEV or EPSS changes); each change also requests a re-match in the database (vuln-rematch-request.ts). */
  changed: Set<string>;
}

export interface VulnDbStatus {
  records: Array<{ source: string; count: number }>;
  kev: number;
  epss: number;
  newest?: { id: string; source: string; modified: string };
  feeds: Array<{ feed: string; feedDate: string | null; cursor: string | null; updatedAt: string }>;
}

const BATCH = 500;
/** Records per import transaction. */
const RECORD_BATCH = 200;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export class VulnerabilityImporter {
  constructor(private readonly db: Kysely<Database>) {}

  /** Writes one record in its own transaction. */
  async putRecord(record: VulnerabilityRecord, now = new Date().toISOString()): Promise<PutResult> {
    return (await writeRecords(this.db, [record], now))[0]!;
  }

  /**
   * Upserts KEV entries; returns the CVE ids whose entry was new or changed. An entry from an older catalog never
   * replaces one from a newer catalog (kevReplaces); a newer catalog that says the same only moves the row's
   * catalog date on, which is no change to re-match.
   */
  async putKev(entries: KevEntry[]): Promise<string[]> {
    const changed: string[] = [];
    for (const part of chunks(entries, BATCH)) {
      await this.db.transaction().execute(async (trx) => {
        await lockVulnerabilityWrites(trx);
        const before = changed.length;
        const existing = new Map((await trx.selectFrom('vuln_kev').selectAll().where('cve_id', 'in', part.map((e) => e.cveId)).execute()).map((r) => [r.cve_id, r]));
        for (const e of part) {
          const fields = { date_added: e.dateAdded, due_date: e.dueDate ?? null, known_ransomware_campaign_use: e.knownRansomwareCampaignUse ?? null, required_action: e.requiredAction ?? null };
          const row = { ...fields, catalog_date: e.catalogDate ?? null };
          const old = existing.get(e.cveId);
          if (old && !kevReplaces(row.catalog_date, old.catalog_date)) continue;
          const fieldsChanged = !old || Object.entries(fields).some(([k, v]) => old[k as keyof typeof fields] !== v);
          if (!old) await trx.insertInto('vuln_kev').values({ cve_id: e.cveId, ...row }).execute();
          else if (fieldsChanged || old.catalog_date !== row.catalog_date) await trx.updateTable('vuln_kev').set(row).where('cve_id', '=', e.cveId).execute();
          else continue;
          existing.set(e.cveId, { cve_id: e.cveId, ...row });
          if (fieldsChanged) changed.push(e.cveId);
        }
        if (changed.length > before) await requestRematch(trx, nowIso());
      });
    }
    return changed;
  }

  /** Upserts EPSS scores (an older score date never replaces a newer one); returns the CVE ids that changed. */
  async putEpss(entries: EpssEntry[]): Promise<string[]> {
    const changed: string[] = [];
    for (const part of chunks(entries, BATCH)) {
      await this.db.transaction().execute(async (trx) => {
        await lockVulnerabilityWrites(trx);
        const before = changed.length;
        const existing = new Map((await trx.selectFrom('vuln_epss').selectAll().where('cve_id', 'in', part.map((e) => e.cveId)).execute()).map((r) => [r.cve_id, r]));
        const inserts: Database['vuln_epss'][] = [];
        for (const e of part) {
          const old = existing.get(e.cveId);
          const row = { probability: e.probability, percentile: e.percentile, score_date: e.date ?? null };
          if (!old) inserts.push({ cve_id: e.cveId, ...row });
          else if (old.score_date && e.date && e.date < old.score_date) continue;
          else if (Number(old.probability) !== e.probability || Number(old.percentile) !== e.percentile || old.score_date !== row.score_date) {
            await trx.updateTable('vuln_epss').set(row).where('cve_id', '=', e.cveId).execute();
          } else continue;
          existing.set(e.cveId, { cve_id: e.cveId, ...row });
          changed.push(e.cveId);
        }
        const unique = [...new Map(inserts.map((i) => [i.cve_id, i])).values()];
        if (unique.length > 0) await trx.insertInto('vuln_epss').values(unique).execute();
        if (changed.length > before) await requestRematch(trx, nowIso());
      });
    }
    return changed;
  }

  /** Records a feed's own date (the newest one seen) and, for NVD sync, the cursor to resume from. */
  async setFeed(feed: FeedName, date: string | null, cursor?: string, now = new Date().toISOString()): Promise<void> {
    // One upsert, so that two imports recording the same feed at once both succeed: the newer date wins, and a
    // cursor is kept unless a new one is given.
    await this.db.insertInto('vuln_feeds').values({ feed, feed_date: date, cursor: cursor ?? null, updated_at: now })
      .onConflict((oc) => oc.column('feed').doUpdateSet({
        feed_date: sql<string | null>`CASE WHEN vuln_feeds.feed_date IS NOT NULL AND (excluded.feed_date IS NULL OR vuln_feeds.feed_date > excluded.feed_date) THEN vuln_feeds.feed_date ELSE excluded.feed_date END`,
        cursor: sql<string | null>`COALESCE(excluded.cursor, vuln_feeds.cursor)`,
        updated_at: sql<string>`excluded.updated_at`,
      }))
      .execute();
  }

  async feed(feed: FeedName): Promise<{ feedDate: string | null; cursor: string | null } | undefined> {
    const row = await this.db.selectFrom('vuln_feeds').selectAll().where('feed', '=', feed).executeTakeFirst();
    return row ? { feedDate: row.feed_date, cursor: row.cursor } : undefined;
  }

  /** Imports feed items (from readFeeds or a sync), buffering KEV/EPSS rows into batches. */
  async importItems(items: AsyncIterable<FeedItem>): Promise<ImportSummary> {
    const summary: ImportSummary = { inserted: 0, updated: 0, unchanged: 0, kev: 0, epss: 0, errors: [], changed: new Set() };
    let kev: KevEntry[] = [];
    let epss: EpssEntry[] = [];
    const newest: Partial<Record<FeedName, string>> = {};
    const flush = async () => {
      for (const id of await this.putKev(kev)) summary.changed.add(id);
      for (const id of await this.putEpss(epss)) summary.changed.add(id);
      summary.kev += kev.length;
      summary.epss += epss.length;
      kev = [];
      epss = [];
    };
    // records are written RECORD_BATCH to a transaction
    let records: VulnerabilityRecord[] = [];
    const flushRecords = async () => {
      const results = await writeRecords(this.db, records);
      results.forEach((result, i) => {
        summary[result]++;
        if (result !== 'unchanged') summary.changed.add(records[i]!.id);
      });
      records = [];
    };
    for await (const item of items) {
      if (item.kind === 'record') {
        records.push(item.record);
        if (records.length >= RECORD_BATCH) await flushRecords();
        const feed = (item.record.source ?? 'nvd') as FeedName;
        if (item.record.modified && (!newest[feed] || item.record.modified > newest[feed]!)) newest[feed] = item.record.modified;
      } else if (item.kind === 'kev') {
        kev.push(item.entry);
      } else if (item.kind === 'epss') {
        epss.push(item.entry);
      } else if (item.kind === 'feed') {
        if (!newest[item.feed] || item.date > newest[item.feed]!) newest[item.feed] = item.date;
      } else {
        summary.errors.push({ file: item.file, ...(item.record ? { record: item.record } : {}), message: item.message });
      }
      if (kev.length + epss.length >= BATCH) await flush();
    }
    await flushRecords();
    await flush();
    for (const [feed, date] of Object.entries(newest)) await this.setFeed(feed as FeedName, date ?? null);
    return summary;
  }

  async status(): Promise<VulnDbStatus> {
    const records = await this.db.selectFrom('vuln_records').select(['source', (eb) => eb.fn.countAll<number>().as('count')]).groupBy('source').orderBy('source').execute();
    const kev = await this.db.selectFrom('vuln_kev').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const epss = await this.db.selectFrom('vuln_epss').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const newest = await this.db.selectFrom('vuln_records').select(['vuln_id', 'source', 'modified']).where('modified', 'is not', null).orderBy('modified', 'desc').limit(1).executeTakeFirst();
    const feeds = await this.db.selectFrom('vuln_feeds').selectAll().orderBy('feed').execute();
    return {
      records: records.map((r) => ({ source: r.source, count: Number(r.count) })),
      kev: Number(kev.n),
      epss: Number(epss.n),
      ...(newest?.modified ? { newest: { id: newest.vuln_id, source: newest.source, modified: newest.modified } } : {}),
      feeds: feeds.map((f) => ({ feed: f.feed, feedDate: f.feed_date, cursor: f.cursor, updatedAt: f.updated_at })),
    };
  }
}

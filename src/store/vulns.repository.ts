// The vulnerability database in the service's store: a VulnerabilitySource for the matcher, and the import
// writes. Each record is written in its own transaction (never half-updated); re-importing the same data changes
// nothing; a record with a newer `modified` replaces the older one. KEV and EPSS rows are upserted in batches.
import { sql, type Kysely } from 'kysely';
import type { EpssEntry } from '../engine/vulns/epss.importer.js';
import type { FeedItem, FeedName } from '../engine/vulns/feed-reader.js';
import { kevReplaces, type KevEntry } from '../engine/vulns/kev.importer.js';
import type { PutResult } from '../engine/vulns/memory-source.js';
import { parseRecordKey, type IndexedCriterion } from '../engine/vulns/criteria-index.js';
import type { VulnerabilityRecord, VulnerabilitySource } from '../engine/vulns/source.js';
import { nowIso } from '../ids.js';
import type { Database } from './schema.js';
import { requestRematch } from './vuln-rematch-request.js';
import { criteriaFor } from './vulns-criteria.js';
import { listCte } from './vulns-lists.js';
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
// bounded: a parsed record holds a few KB, so this stays well under 100 MB
const PARSED_CACHE = 20_000;

/**
 * Keys per record or score query (a VALUES list of one or two parameters each on PostgreSQL, under its 65,535
 * parameters): an inventory's records usually come in one query.
 */
const KEYS_PER_QUERY = 10_000;

type KevColumns = Omit<Database['vuln_kev'], 'cve_id'>;
type EpssColumns = Omit<Database['vuln_epss'], 'cve_id'>;
/** A CVE's KEV and EPSS columns side by side (null where it has none). */
type ScoreRow = { id: string } & Nullable<Omit<KevColumns, 'catalog_date'>> & Nullable<EpssColumns>;
type Nullable<T> = { [K in keyof T]: T[K] | null };

function kevOf(k: Omit<KevColumns, 'catalog_date'>): NonNullable<VulnerabilityRecord['kev']> {
  return {
    dateAdded: k.date_added,
    ...(k.due_date ? { dueDate: k.due_date } : {}),
    ...(k.known_ransomware_campaign_use ? { knownRansomwareCampaignUse: k.known_ransomware_campaign_use } : {}),
    ...(k.required_action ? { requiredAction: k.required_action } : {}),
  };
}

function epssOf(e: EpssColumns): NonNullable<VulnerabilityRecord['epss']> {
  return { probability: Number(e.probability), percentile: Number(e.percentile), ...(e.score_date ? { date: e.score_date } : {}) };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export class VulnerabilityRepository implements VulnerabilitySource {
  constructor(private readonly db: Kysely<Database>) {}

  /** Parsed records by source, record id and import time (a re-import changes imported_at), most recent last. */
  private readonly parsed = new Map<string, VulnerabilityRecord>();

  async byProduct(vendor: string, product: string): Promise<VulnerabilityRecord[]> {
    const keys = await this.db
      .selectFrom('vuln_products as p')
      .innerJoin('vuln_records as r', (j) => j.onRef('r.source', '=', 'p.source').onRef('r.record_id', '=', 'p.record_id'))
      .select(['r.source', 'r.record_id', 'r.imported_at'])
      .where('p.vendor', '=', vendor)
      .where('p.product', '=', product)
      .execute();
    return this.enrich(await this.load(keys));
  }

  async byProducts(pairs: Array<[string, string]>): Promise<Map<string, VulnerabilityRecord[]>> {
    const out = new Map<string, VulnerabilityRecord[]>(pairs.map((p) => [p.join('\0'), []]));
    const keys: Array<{ vendor: string; product: string; source: string; record_id: string; imported_at: string }> = [];
    for (const part of chunks(pairs, 100)) {
      keys.push(...await this.db
        .selectFrom('vuln_products as p')
        .innerJoin('vuln_records as r', (j) => j.onRef('r.source', '=', 'p.source').onRef('r.record_id', '=', 'p.record_id'))
        .select(['p.vendor', 'p.product', 'r.source', 'r.record_id', 'r.imported_at'])
        .where((eb) => eb.or(part.map(([vendor, product]) => eb.and([eb('p.vendor', '=', vendor), eb('p.product', '=', product)]))))
        .execute());
    }
    const found = await this.loadKeyed(keys);
    // enrich keeps order and length, so records line up with their keys
    const records = await this.enrich(found.map(([, r]) => r));
    found.forEach(([k], i) => out.get(`${k.vendor}\0${k.product}`)?.push(records[i]!));
    return out;
  }

  async criteriaFor(queries: Array<{ vendor: string; product: string; version: string }>): Promise<Map<string, IndexedCriterion[]>> {
    return criteriaFor(this.db, queries);
  }

  /**
   * Records by key (criteria-index.ts recordKey) with KEV and EPSS. A key carries the import time its criterion
   * was read with, so a record already parsed in that version is served without reading it again; the others are
   * read and kept, but answer their key only in that version (see VulnerabilitySource.recordsByKeys).
   */
  async recordsByKeys(keys: string[]): Promise<Map<string, VulnerabilityRecord>> {
    const found: Array<[string, VulnerabilityRecord]> = [];
    const missing: Array<{ key: string; source: string; record_id: string; stamp?: string }> = [];
    for (const key of keys) {
      const { source, recordId, stamp } = parseRecordKey(key);
      const record = stamp === undefined ? undefined : this.cached(`${source}\0${recordId}\0${stamp}`);
      if (record) found.push([key, record]);
      else missing.push({ key, source, record_id: recordId, stamp });
    }
    for (const part of chunks(missing, KEYS_PER_QUERY)) {
      const rows = new Map((await this.readRecords(part)).map((r) => [`${r.source}\0${r.record_id}`, r]));
      for (const k of part) {
        const row = rows.get(`${k.source}\0${k.record_id}`);
        if (!row) continue;
        const record = this.remember(row);
        if (k.stamp === undefined || k.stamp === row.imported_at) found.push([k.key, record]);
      }
    }
    this.trimCache();
    const records = await this.enrich(found.map(([, r]) => r));
    return new Map(found.map(([key], i) => [key, records[i]!]));
  }

  async byPackage(ecosystem: string, name: string): Promise<VulnerabilityRecord[]> {
    const keys = await this.db
      .selectFrom('vuln_packages as p')
      .innerJoin('vuln_records as r', (j) => j.onRef('r.source', '=', 'p.source').onRef('r.record_id', '=', 'p.record_id'))
      .select(['r.source', 'r.record_id', 'r.imported_at'])
      .where('p.ecosystem', '=', ecosystem)
      .where('p.name', '=', name)
      .execute();
    return this.enrich(await this.load(keys));
  }

  /** Records for the keys, parsing only those not in the cache (matching every product's image re-reads them). */
  private async load(keys: Array<{ source: string; record_id: string; imported_at: string }>): Promise<VulnerabilityRecord[]> {
    return (await this.loadKeyed(keys)).map(([, r]) => r);
  }

  /** Like load, with each record next to the key it was found for (a record replaced meanwhile is left out). */
  private async loadKeyed<K extends { source: string; record_id: string; imported_at: string }>(keys: K[]): Promise<Array<[K, VulnerabilityRecord]>> {
    const cacheKey = (k: { source: string; record_id: string; imported_at: string }) => `${k.source}\0${k.record_id}\0${k.imported_at}`;
    for (const part of chunks(keys.filter((k) => !this.parsed.has(cacheKey(k))), KEYS_PER_QUERY)) {
      for (const row of await this.readRecords(part)) this.remember(row);
    }
    const out: Array<[K, VulnerabilityRecord]> = [];
    for (const k of keys) {
      const record = this.cached(cacheKey(k));
      if (!record) continue; // replaced between the two queries; the next lookup sees the new one
      out.push([k, record]);
    }
    this.trimCache();
    return out;
  }

  /**
   * The stored rows of the keys. A list joined to the primary key (vulns-lists.ts): both databases plan it as one
   * index lookup per key, even before statistics exist (an IN list after a bulk import can make PostgreSQL read
   * every record of the source).
   */
  private async readRecords(keys: Array<{ source: string; record_id: string }>): Promise<Array<{ source: string; record_id: string; imported_at: string; data: string }>> {
    if (keys.length === 0) return [];
    const { rows } = await sql<{ source: string; record_id: string; imported_at: string; data: string }>`
      WITH ${listCte(this.db, 'k', ['source', 'record_id'], keys.map((k) => [k.source, k.record_id]))}
      SELECT r.source, r.record_id, r.imported_at, r.data FROM k JOIN vuln_records r ON r.source = k.source AND r.record_id = k.record_id
    `.execute(this.db);
    return rows;
  }

  /** A parsed record from the cache (and marks it recently used). */
  private cached(key: string): VulnerabilityRecord | undefined {
    const record = this.parsed.get(key);
    if (record) {
      this.parsed.delete(key);
      this.parsed.set(key, record);
    }
    return record;
  }

  private remember(row: { source: string; record_id: string; imported_at: string; data: string }): VulnerabilityRecord {
    const record = JSON.parse(row.data) as VulnerabilityRecord;
    this.parsed.set(`${row.source}\0${row.record_id}\0${row.imported_at}`, record);
    return record;
  }

  private trimCache(): void {
    while (this.parsed.size > PARSED_CACHE) this.parsed.delete(this.parsed.keys().next().value!);
  }

  /** Attaches KEV and EPSS rows by CVE id (the record's id or a CVE alias). */
  private async enrich(records: VulnerabilityRecord[]): Promise<VulnerabilityRecord[]> {
    const cveOf = (r: VulnerabilityRecord) => (r.id.startsWith('CVE-') ? r.id : r.aliases.find((id) => id.startsWith('CVE-')));
    const cves = [...new Set(records.map(cveOf).filter((c): c is string => c !== undefined))];
    if (cves.length === 0) return records;
    const kev = new Map<string, VulnerabilityRecord['kev']>();
    const epss = new Map<string, VulnerabilityRecord['epss']>();
    for (const part of chunks(cves, KEYS_PER_QUERY)) {
      // one query for both scores: a round trip costs more than the join
      const { rows } = await sql<ScoreRow>`
        WITH ${listCte(this.db, 'c', ['id'], part.map((id) => [id]))}
        SELECT c.id, k.date_added, k.due_date, k.known_ransomware_campaign_use, k.required_action, e.probability, e.percentile, e.score_date
        FROM c LEFT JOIN vuln_kev k ON k.cve_id = c.id LEFT JOIN vuln_epss e ON e.cve_id = c.id
        WHERE k.cve_id IS NOT NULL OR e.cve_id IS NOT NULL
      `.execute(this.db);
      for (const row of rows) {
        if (row.date_added !== null) kev.set(row.id, kevOf(row as Omit<KevColumns, 'catalog_date'>));
        if (row.probability !== null) epss.set(row.id, epssOf(row as EpssColumns));
      }
    }
    return records.map((r) => {
      const cve = cveOf(r);
      const k = cve ? kev.get(cve) : undefined;
      const e = cve ? epss.get(cve) : undefined;
      // KEV from the catalog wins over the CISA fields NVD copies into its records
      return k || e ? { ...r, ...(k ? { kev: k } : {}), ...(e ? { epss: e } : {}) } : r;
    });
  }

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

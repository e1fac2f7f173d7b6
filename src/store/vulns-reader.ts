// The vulnerability database in the service's store, read: the VulnerabilitySource the matcher queries. The
// criteria of the asked products come from the criteria index (vulns-criteria.ts), the matcher selects the
// records to load, and those are read by key and parsed once (a bounded cache keyed by import time, so matching
// every product's latest image re-reads nothing unchanged), with their KEV and EPSS rows.
import { sql, type Kysely } from 'kysely';
import { parseRecordKey, recordKey } from '../engine/vulns/criteria-index.js';
import type { VulnerabilityCandidates, VulnerabilityQuery, VulnerabilityRecord, VulnerabilitySource } from '../engine/vulns/source.js';
import { dialectOf } from './database.js';
import type { Database } from './schema.js';
import { criteriaFor } from './vulns-criteria.js';
import { listCte } from './vulns-lists.js';

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
/** The KEV and EPSS rows of the CVEs asked. */
type Scores = { asked: Set<string>; kev: Map<string, NonNullable<VulnerabilityRecord['kev']>>; epss: Map<string, NonNullable<VulnerabilityRecord['epss']>> };

/** Records read per query when many are missing: parts read at once, each on its own pooled PostgreSQL connection. */
const READ_PART = 1250;
/** Connections warm() opens: the parts of a typical inventory's records (about 5,000) plus the scores query. */
const WARM_CONNECTIONS = 5;

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

export class VulnerabilityReader implements VulnerabilitySource {
  /** PostgreSQL: a pool of connections, so queries sent together run together. */
  private readonly pooled: boolean;

  constructor(private readonly db: Kysely<Database>) {
    this.pooled = dialectOf(db) === 'postgres';
  }

  /** Parsed records by source, record id and import time (a re-import changes imported_at), most recent last. */
  private readonly parsed = new Map<string, VulnerabilityRecord>();

  /**
   * Opens the connections the first matching will use, ahead of it (a new scan thread calls this when it starts,
   * so the scan's matching does not wait for connection setup): on PostgreSQL one per part read at once.
   */
  async warm(): Promise<void> {
    if (!this.pooled) return;
    await Promise.all(Array.from({ length: WARM_CONNECTIONS }, () => sql`SELECT 1`.execute(this.db)));
  }

  async query(query: VulnerabilityQuery): Promise<VulnerabilityCandidates> {
    const criteria = query.products.length > 0 ? await criteriaFor(this.db, query.products) : new Map();
    const keys = await query.select(criteria);
    const byKey = keys.length > 0 ? await this.recordsByKeys(keys) : new Map<string, VulnerabilityRecord>();
    return { byKey, byPackage: await this.byPackages(query.packages) };
  }

  /**
   * Records by key (criteria-index.ts recordKey) with KEV and EPSS. A key carries the import time its criterion
   * was read with, so a record already parsed in that version is served without reading it again; the others are
   * read and kept, but answer their key only in that version (see VulnerabilityCandidates.byKey).
   */
  private async recordsByKeys(keys: string[]): Promise<Map<string, VulnerabilityRecord>> {
    const found: Array<[string, VulnerabilityRecord]> = [];
    const missing: Array<{ key: string; source: string; record_id: string; stamp?: string }> = [];
    const ids = new Set<string>();
    for (const key of keys) {
      const record = this.cached(key);
      if (record) {
        found.push([key, record]);
        continue;
      }
      const { source, recordId, stamp } = parseRecordKey(key);
      if (recordId.startsWith('CVE-')) ids.add(recordId);
      missing.push({ key, source, record_id: recordId, stamp });
    }
    // the scores of the CVEs the keys name are read while the records are (a round trip off the critical path), and
    // the records in a few parts at once: on PostgreSQL each on its own pooled connection, so the server reads one
    // part while this thread parses another
    // SQLite has one connection, which gains nothing from this and measured slower: one query, then the scores
    const pooled = this.pooled;
    const scores = pooled ? this.scores([...ids]) : undefined;
    scores?.catch(() => undefined);
    // each part is parsed as soon as it arrives, while the server still reads the others; kept in part order
    const parts = await Promise.all(chunks(missing, pooled ? READ_PART : KEYS_PER_QUERY).map(async (part) => {
      const parsed: Array<[string, VulnerabilityRecord]> = [];
      for (const row of await this.readRecords(part)) {
        const k = part[row.position]!;
        // a key names its record at one import time: the same string is the parsed cache's key for that version
        const current = k.stamp === row.imported_at;
        const record = this.remember(current ? k.key : recordKey(k.source, k.record_id, row.imported_at), row.data);
        if (k.stamp === undefined || current) parsed.push([k.key, record]);
      }
      return parsed;
    }));
    for (const part of parts) found.push(...part);
    this.trimCache();
    const records = await this.enrich(found.map(([, r]) => r), scores ? await scores : undefined);
    return new Map(found.map(([key], i) => [key, records[i]!]));
  }

  /** The records naming each package (OSV ecosystem base and name), in one query per few thousand packages. */
  private async byPackages(packages: Array<{ ecosystem: string; name: string }>): Promise<Map<string, VulnerabilityRecord[]>> {
    const out = new Map<string, VulnerabilityRecord[]>(packages.map((p) => [`${p.ecosystem}\0${p.name}`, []]));
    const keys: Array<{ ecosystem: string; name: string; source: string; record_id: string; imported_at: string }> = [];
    for (const part of chunks(packages, KEYS_PER_QUERY)) {
      const { rows } = await sql<{ ecosystem: string; name: string; source: string; record_id: string; imported_at: string }>`
        WITH ${listCte(this.db, 'q', ['ecosystem', 'name'], part.map((p) => [p.ecosystem, p.name]))}
        SELECT p.ecosystem, p.name, r.source, r.record_id, r.imported_at FROM q
        JOIN vuln_packages p ON p.ecosystem = q.ecosystem AND p.name = q.name
        JOIN vuln_records r ON r.source = p.source AND r.record_id = p.record_id
      `.execute(this.db);
      keys.push(...rows);
    }
    const found = await this.loadKeyed(keys);
    // enrich keeps order and length, so records line up with their keys
    const records = await this.enrich(found.map(([, r]) => r));
    found.forEach(([k], i) => out.get(`${k.ecosystem}\0${k.name}`)?.push(records[i]!));
    return out;
  }

  /** Like load, with each record next to the key it was found for (a record replaced meanwhile is left out). */
  private async loadKeyed<K extends { source: string; record_id: string; imported_at: string }>(keys: K[]): Promise<Array<[K, VulnerabilityRecord]>> {
    // the parsed cache's key: the record's key stamped with its import time
    const cacheKey = (k: { source: string; record_id: string; imported_at: string }) => recordKey(k.source, k.record_id, k.imported_at);
    for (const part of chunks(keys.filter((k) => !this.parsed.has(cacheKey(k))), KEYS_PER_QUERY)) {
      for (const row of await this.readRecords(part)) {
        const k = part[row.position]!;
        this.remember(recordKey(k.source, k.record_id, row.imported_at), row.data);
      }
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
   * The stored rows of the keys, each with its key's index in `keys` (a key without a stored record has no row). A
   * list joined to the primary key (vulns-lists.ts): both databases plan it as one index lookup per key, even
   * before statistics exist (an IN list after a bulk import can make PostgreSQL read every record of the source).
   */
  private async readRecords(keys: Array<{ source: string; record_id: string }>): Promise<Array<{ position: number; imported_at: string; data: string }>> {
    if (keys.length === 0) return [];
    const { rows } = await sql<{ position: number; imported_at: string; data: string }>`
      WITH ${listCte(this.db, 'k', ['source', 'record_id'], keys.map((k) => [k.source, k.record_id]), 'position')}
      SELECT k.position, r.imported_at, r.data FROM k JOIN vuln_records r ON r.source = k.source AND r.record_id = k.record_id
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

  /** Parses a stored record and keeps it under its cache key (source, record id and import time). */
  private remember(cacheKey: string, data: string): VulnerabilityRecord {
    const record = JSON.parse(data) as VulnerabilityRecord;
    this.parsed.set(cacheKey, record);
    return record;
  }

  private trimCache(): void {
    while (this.parsed.size > PARSED_CACHE) this.parsed.delete(this.parsed.keys().next().value!);
  }

  /** The KEV and EPSS rows of the CVEs, one query per few thousand. */
  private async scores(cves: string[]): Promise<Scores> {
    const out: Scores = { asked: new Set(cves), kev: new Map(), epss: new Map() };
    for (const part of chunks(cves, KEYS_PER_QUERY)) {
      // one query for both scores: a round trip costs more than the join
      const { rows } = await sql<ScoreRow>`
        WITH ${listCte(this.db, 'c', ['id'], part.map((id) => [id]))}
        SELECT c.id, k.date_added, k.due_date, k.known_ransomware_campaign_use, k.required_action, e.probability, e.percentile, e.score_date
        FROM c LEFT JOIN vuln_kev k ON k.cve_id = c.id LEFT JOIN vuln_epss e ON e.cve_id = c.id
        WHERE k.cve_id IS NOT NULL OR e.cve_id IS NOT NULL
      `.execute(this.db);
      for (const row of rows) {
        if (row.date_added !== null) out.kev.set(row.id, kevOf(row as Omit<KevColumns, 'catalog_date'>));
        if (row.probability !== null) out.epss.set(row.id, epssOf(row as EpssColumns));
      }
    }
    return out;
  }

  /** Attaches KEV and EPSS rows by CVE id (the record's id or a CVE alias); `known` holds those already read. */
  private async enrich(records: VulnerabilityRecord[], known?: Scores): Promise<VulnerabilityRecord[]> {
    const cveOf = (r: VulnerabilityRecord) => (r.id.startsWith('CVE-') ? r.id : r.aliases.find((id) => id.startsWith('CVE-')));
    const cves = [...new Set(records.map(cveOf).filter((c): c is string => c !== undefined))];
    if (cves.length === 0) return records;
    const more = await this.scores(known ? cves.filter((c) => !known.asked.has(c)) : cves);
    const kev = (cve: string) => known?.kev.get(cve) ?? more.kev.get(cve);
    const epss = (cve: string) => known?.epss.get(cve) ?? more.epss.get(cve);
    return records.map((r) => {
      const cve = cveOf(r);
      const k = cve ? kev(cve) : undefined;
      const e = cve ? epss(cve) : undefined;
      // KEV from the catalog wins over the CISA fields NVD copies into its records
      return k || e ? { ...r, ...(k ? { kev: k } : {}), ...(e ? { epss: e } : {}) } : r;
    });
  }
}

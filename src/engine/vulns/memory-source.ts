// An in-memory vulnerability database with the same import rules as the store (per feed record: a newer
// `modified` replaces an older one, an equal or older one changes nothing), for tests and `firmscope scan`
// with feed files instead of a database.
import { unescapeCpe, parseCpe } from '../cpe.js';
import { indexCriteria, keyOfRecord, parseRecordKey, recordKey, type IndexedCriterion } from './criteria-index.js';
import type { EpssEntry } from './epss.importer.js';
import type { FeedItem } from './feed-reader.js';
import { kevReplaces, type KevEntry } from './kev.importer.js';
import type { VulnerabilityCandidates, VulnerabilityQuery, VulnerabilityRecord, VulnerabilitySource } from './source.js';

export type PutResult = 'inserted' | 'updated' | 'unchanged';

/** The index keys of a record: CPE (vendor, product) pairs and OSV (ecosystem base, name) pairs. */
export function recordKeys(record: VulnerabilityRecord): { products: Array<[string, string]>; packages: Array<[string, string]> } {
  const products = new Map<string, [string, string]>();
  for (const c of record.criteria.flat()) {
    const cpe = parseCpe(c.criteria);
    if (!cpe) continue;
    const pair: [string, string] = [unescapeCpe(cpe.vendor), unescapeCpe(cpe.product)];
    products.set(pair.join('\0'), pair);
  }
  const packages = new Map<string, [string, string]>();
  for (const p of record.packages ?? []) {
    const pair: [string, string] = [p.ecosystem.split(':')[0]!, p.name];
    packages.set(pair.join('\0'), pair);
  }
  return { products: [...products.values()], packages: [...packages.values()] };
}

/**
 * Whether an incoming record replaces the stored one: it is strictly newer; or neither has a date and it differs
 * (the later import wins). An older or equally dated record changes nothing, so re-imports are no-ops.
 */
export function shouldReplace(incoming: string | undefined, stored: string | null | undefined, differs: () => boolean): boolean {
  if (incoming && stored) return incoming > stored;
  if (incoming && !stored) return true;
  if (!incoming && stored) return false;
  return differs();
}

export class MemoryVulnerabilitySource implements VulnerabilitySource {
  private readonly records = new Map<string, VulnerabilityRecord>();
  /** The version of each stored record (a count of puts), given to its criteria as their recordStamp. */
  private readonly stamps = new Map<string, string>();
  /**
   * The current version of each record by its stamped key (recordKey with the stamp), the key the matcher selects
   * with: one lookup per selected record instead of parsing the key and checking the stamp.
   */
  private readonly stamped = new Map<string, VulnerabilityRecord>();
  private puts = 0;
  private readonly packages = new Map<string, Set<string>>();
  /** CPE criteria by `${vendor}\0${product}`, then by record key; `flat` is their list, rebuilt after a change. */
  private readonly criteria = new Map<string, { byRecord: Map<string, IndexedCriterion[]>; flat?: IndexedCriterion[] }>();
  private readonly kev = new Map<string, KevEntry>();
  private readonly epss = new Map<string, EpssEntry>();

  putRecord(record: VulnerabilityRecord): PutResult {
    const key = keyOfRecord(record);
    const existing = this.records.get(key);
    if (existing) {
      if (!shouldReplace(record.modified, existing.modified, () => JSON.stringify(existing) !== JSON.stringify(record))) return 'unchanged';
      this.unindex(key, existing);
      this.stamped.delete(`${key}\0${this.stamps.get(key)}`);
    }
    this.records.set(key, record);
    const stamp = String(++this.puts);
    this.stamps.set(key, stamp);
    this.stamped.set(`${key}\0${stamp}`, record);
    const { packages } = recordKeys(record);
    for (const [e, n] of packages) this.add(this.packages, `${e}\0${n}`, key);
    for (const c of indexCriteria(record)) {
      c.recordStamp = stamp;
      const pair = `${c.vendor}\0${c.product}`;
      let entry = this.criteria.get(pair);
      if (!entry) this.criteria.set(pair, (entry = { byRecord: new Map() }));
      entry.flat = undefined;
      const list = entry.byRecord.get(key);
      if (list) list.push(c);
      else entry.byRecord.set(key, [c]);
    }
    return existing ? 'updated' : 'inserted';
  }

  /** As the store: an entry from an older catalog never replaces one from a newer catalog. */
  putKev(entry: KevEntry): void {
    const old = this.kev.get(entry.cveId);
    if (!old || kevReplaces(entry.catalogDate, old.catalogDate)) this.kev.set(entry.cveId, entry);
  }

  putEpss(entry: EpssEntry): void {
    this.epss.set(entry.cveId, entry);
  }

  /** Applies one feed item; errors are returned to the caller to report. */
  apply(item: FeedItem): void {
    if (item.kind === 'record') this.putRecord(item.record);
    else if (item.kind === 'kev') this.putKev(item.entry);
    else if (item.kind === 'epss') this.putEpss(item.entry);
  }

  get size(): number {
    return this.records.size;
  }

  async query(query: VulnerabilityQuery): Promise<VulnerabilityCandidates> {
    const criteria = new Map<string, IndexedCriterion[]>();
    for (const { vendor, product } of query.products) {
      const pair = `${vendor}\0${product}`;
      const entry = this.criteria.get(pair);
      if (entry) entry.flat ??= [...entry.byRecord.values()].flat();
      criteria.set(pair, entry?.flat ?? []);
    }
    const byKey = new Map<string, VulnerabilityRecord>();
    for (const key of await query.select(criteria)) {
      const current = this.stamped.get(key);
      if (current) {
        byKey.set(key, this.enrich(current));
        continue;
      }
      // a key without a stamp, or of a version since replaced (left out)
      const { source, recordId, stamp } = parseRecordKey(key);
      const own = recordKey(source, recordId);
      const record = this.records.get(own);
      if (record && (stamp === undefined || stamp === this.stamps.get(own))) byKey.set(key, this.enrich(record));
    }
    const byPackage = new Map(query.packages.map(({ ecosystem, name }) => [`${ecosystem}\0${name}`, this.resolve(this.packages.get(`${ecosystem}\0${name}`))]));
    return { byKey, byPackage };
  }

  private resolve(keys: Set<string> | undefined): VulnerabilityRecord[] {
    return [...(keys ?? [])].map((k) => this.enrich(this.records.get(k)!));
  }

  /** Attaches KEV and EPSS by the record's CVE id (or a CVE alias). */
  private enrich(record: VulnerabilityRecord): VulnerabilityRecord {
    if (this.kev.size === 0 && this.epss.size === 0) return record;
    const cve = record.id.startsWith('CVE-') ? record.id : record.aliases.find((id) => id.startsWith('CVE-'));
    const kev = cve ? this.kev.get(cve) : undefined;
    const epss = cve ? this.epss.get(cve) : undefined;
    if (!kev && !epss) return record;
    const out = { ...record };
    if (kev) {
      const { cveId: _, catalogDate: __, ...rest } = kev;
      out.kev = rest;
    }
    if (epss) out.epss = { probability: epss.probability, percentile: epss.percentile, ...(epss.date ? { date: epss.date } : {}) };
    return out;
  }

  private add(index: Map<string, Set<string>>, k: string, key: string): void {
    let set = index.get(k);
    if (!set) index.set(k, (set = new Set()));
    set.add(key);
  }

  private unindex(key: string, record: VulnerabilityRecord): void {
    const { products, packages } = recordKeys(record);
    for (const [e, n] of packages) this.packages.get(`${e}\0${n}`)?.delete(key);
    for (const [v, p] of products) {
      const entry = this.criteria.get(`${v}\0${p}`);
      if (entry?.byRecord.delete(key)) entry.flat = undefined;
    }
  }
}

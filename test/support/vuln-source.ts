// Lookups on a VulnerabilitySource through its one query, for tests that check what a database holds, and the
// shared NVD and KEV samples as an in-memory source.
import { readFeeds } from '../../src/engine/vulns/feed-reader.js';
import { MemoryVulnerabilitySource } from '../../src/engine/vulns/memory-source.js';
import { recordKey, type IndexedCriterion } from '../../src/engine/vulns/criteria-index.js';
import type { VulnerabilityRecord, VulnerabilitySource } from '../../src/engine/vulns/source.js';
import { sharedPath } from './shared.js';

const everyRecordOf = (criteria: IndexedCriterion[] | undefined) => [...new Set((criteria ?? []).map((c) => recordKey(c.source, c.recordId, c.recordStamp)))];

/** The records with a vulnerable criterion for this CPE product, whatever its version. */
export async function recordsOfProduct(source: VulnerabilitySource, vendor: string, product: string): Promise<VulnerabilityRecord[]> {
  const answer = await source.query({ products: [{ vendor, product, version: '*' }], packages: [], select: (c) => everyRecordOf(c.get(`${vendor}\0${product}`)) });
  return [...answer.byKey.values()];
}

/** The records naming an OSV package (ecosystem base and name). */
export async function recordsOfPackage(source: VulnerabilitySource, ecosystem: string, name: string): Promise<VulnerabilityRecord[]> {
  const answer = await source.query({ products: [], packages: [{ ecosystem, name }], select: () => [] });
  return answer.byPackage.get(`${ecosystem}\0${name}`) ?? [];
}

/**
 * The source with its version-key filters out of the way: every stored criterion of an asked product reaches the
 * matcher's criterion test (the reference the key filters of the stores and the matcher must agree with).
 */
export function unfiltered(source: VulnerabilitySource): VulnerabilitySource {
  return {
    query: (q) => source.query({
      ...q,
      products: q.products.map((p) => ({ ...p, version: '*' })),
      select: (criteria) => q.select(new Map([...criteria].map(([pair, list]) => [pair, list.map((c) => ({ ...c, keys: { keyed: false, low: '', high: '' } }))]))),
    }),
  };
}

/** A source whose every query fails when `fails` says so for one of its products. */
export function failingSource(fails: (vendor: string) => boolean, message: string): VulnerabilitySource {
  return {
    query: async (q) => {
      if (q.products.some((p) => fails(p.vendor))) throw new Error(message);
      return { byKey: new Map(), byPackage: new Map(q.packages.map((p) => [`${p.ecosystem}\0${p.name}`, []])) };
    },
  };
}

/** The shared NVD corpus and the CISA KEV catalogue (../shared/vulndata) in memory; unreadable items are skipped. */
export async function sharedNvdAndKev(): Promise<MemoryVulnerabilitySource> {
  const source = new MemoryVulnerabilitySource();
  for await (const item of readFeeds([sharedPath('vulndata', 'nvd-corpus'), sharedPath('vulndata', 'cisa-kev-known_exploited_vulnerabilities.json')])) {
    if (item.kind !== 'error') source.apply(item);
  }
  return source;
}

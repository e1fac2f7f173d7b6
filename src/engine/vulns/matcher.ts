// Matches an inventory against a VulnerabilitySource with one query: each component's lookups are chosen by its
// package type (a CPE for the CPE matcher, a purl of an OSV ecosystem for the OSV package matcher); the stored
// criteria of the asked products are tested here with the CPE matcher's own criterion test, and only the records
// with a matching criterion are loaded, with the records of the asked packages. Each candidate record is tried by
// both matchers, and records that alias each other are merged so that one vulnerability is one finding per
// component. When a batch lookup fails it is asked again component by component, so a failing lookup for one
// component is reported and the rest go on.
import { parseCpe, unescapeCpe } from '../cpe.js';
import type { Component, EngineFinding, Problem } from '../types.js';
import { criterionMatch, matchCpe, matchCpeHits, matchTarget, type CriterionHit, type MatchTarget } from './cpe-matcher.js';
import { keyOfRecord, keysAdmit, recordKey, type IndexedCriterion } from './criteria-index.js';
import { componentPackage, matchOsv } from './osv-matcher.js';
import type { VulnerabilityRecord, VulnerabilitySource } from './source.js';
import { versionKey } from './version-key.js';
import { buildFinding, componentFacts, type RecordMatch } from './vuln-finding.js';

/** How a component is looked up, by its package type: its CPE product, its OSV package, or both. */
export interface Lookups {
  target?: MatchTarget;
  pkg?: NonNullable<ReturnType<typeof componentPackage>>;
}

export function lookupsOf(component: Component): Lookups {
  const target = matchTarget(component);
  const pkg = componentPackage(component);
  return { ...(target ? { target } : {}), ...(pkg ? { pkg } : {}) };
}

/**
 * The image's identified platforms, against which AND configurations' platform criteria are evaluated: its
 * hardware and operating-system components (a device CPE, the kernel).
 */
export function platformsOf(components: Component[]): MatchTarget[] {
  const out: MatchTarget[] = [];
  for (const component of components) {
    const cpe = component.cpe ? parseCpe(component.cpe) : undefined;
    if (!cpe || (cpe.part !== 'h' && cpe.part !== 'o')) continue;
    // a device is often identified without a version
    out.push(matchTarget(component) ?? { cpe, version: '*', vendor: unescapeCpe(cpe.vendor), product: unescapeCpe(cpe.product) });
  }
  return out;
}

/**
 * Purl types of packages from a distribution's package database (dpkg, rpm, apk, opkg), whose advisories know
 * backports. OpenWrt's (opkg, purl type 'openwrt') count once OSV-format records of the 'OpenWrt' ecosystem are
 * imported, compared in opkg's version order (version-opkg.ts); OSV itself publishes none.
 */
const DISTRIBUTION_TYPES = new Set(['deb', 'rpm', 'apk', 'openwrt']);

/**
 * The vulnerability ids (and aliases) the distribution's own advisories give for this package, when it comes from
 * a distribution's package database: empty otherwise, or when none is imported.
 */
function distributionAdvised(pkg: Lookups['pkg'], packaged: VulnerabilityRecord[]): Set<string> {
  const ids = new Set<string>();
  if (!pkg || !DISTRIBUTION_TYPES.has(pkg.purl.type)) return ids;
  for (const record of packaged) {
    if (!record.packages?.some((p) => p.ecosystem.split(':')[0] === pkg.ecosystem && p.name === pkg.name)) continue;
    for (const id of [record.id, ...record.aliases]) ids.add(id);
  }
  return ids;
}

/** A component's candidate records: those selected by a matching criterion (with the hits) and those of its package. */
interface Candidates {
  selected: Array<{ record: VulnerabilityRecord; hits: CriterionHit[] }>;
  packaged: VulnerabilityRecord[];
}

/** Times a query is asked again when a selected record changed between its criteria and its loading. */
const STALE_RETRIES = 3;

const pairKey = (vendor: string, product: string) => `${vendor}\0${product}`;
const packageKey = (pkg: { ecosystem: string; name: string }) => `${pkg.ecosystem}\0${pkg.name}`;

/** Groups matches whose records share an id or alias (union-find over ids). */
function groupByAlias(matches: RecordMatch[]): RecordMatch[][] {
  // the common case, records without aliases and distinct ids, needs no merging
  const ids = new Set<string>();
  if (matches.every((m) => m.record.aliases.length === 0 && !ids.has(m.record.id) && ids.add(m.record.id))) return matches.map((m) => [m]);
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== undefined && parent.get(root) !== root) root = parent.get(root)!;
    parent.set(x, root);
    return root;
  };
  const union = (a: string, b: string) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  };
  for (const m of matches) {
    parent.set(m.record.id, parent.get(m.record.id) ?? m.record.id);
    for (const alias of m.record.aliases) {
      parent.set(alias, parent.get(alias) ?? alias);
      union(alias, m.record.id);
    }
  }
  const groups = new Map<string, RecordMatch[]>();
  for (const m of matches) {
    const root = find(m.record.id);
    const group = groups.get(root);
    if (group) group.push(m);
    else groups.set(root, [m]);
  }
  return [...groups.values()];
}

export class VulnerabilityMatcher {
  constructor(private readonly source: VulnerabilitySource) {}

  /** Each component's matching criteria among the stored ones, by record key. */
  private static hitsOf(target: MatchTarget, criteria: IndexedCriterion[]): Map<string, CriterionHit[]> {
    const hits = new Map<string, CriterionHit[]>();
    const version = versionKey(target.version);
    for (const c of criteria) {
      // the version keys settle most criteria with two string comparisons
      if (version !== undefined && !keysAdmit(c.keys, version)) continue;
      const kind = criterionMatch(c, target);
      if (!kind) continue;
      const key = recordKey(c.source, c.recordId, c.recordStamp);
      const hit = { configIndex: c.configIndex, criterionIndex: c.criterionIndex, view: c, kind };
      const list = hits.get(key);
      if (list) list.push(hit);
      else hits.set(key, [hit]);
    }
    return hits;
  }

  /**
   * The candidates of the components, in one query (asked again for the components one of whose selected records
   * changed meanwhile). A record none of whose criteria matches cannot match (matchCpe reports matching criteria
   * only), so selecting by criteria finds what matching every record of the product would.
   */
  private async candidates(entries: Array<[Component, Lookups]>): Promise<Map<Component, Candidates>> {
    const out = new Map<Component, Candidates>();
    let pending = entries;
    for (let attempt = 0; attempt < STALE_RETRIES && pending.length > 0; attempt++) {
      const hitsBy = new Map<Component, Map<string, CriterionHit[]>>();
      const products = new Map<string, { vendor: string; product: string; version: string }>();
      const packages = new Map<string, { ecosystem: string; name: string }>();
      for (const [, { target, pkg }] of pending) {
        if (target) products.set(`${pairKey(target.vendor, target.product)}\0${target.version}`, { vendor: target.vendor, product: target.product, version: target.version });
        if (pkg) packages.set(packageKey(pkg), { ecosystem: pkg.ecosystem, name: pkg.name });
      }
      const answer = await this.source.query({
        products: [...products.values()],
        packages: [...packages.values()],
        select: (criteria) => {
          const keys = new Set<string>();
          for (const [component, { target }] of pending) {
            if (!target) continue;
            const hits = VulnerabilityMatcher.hitsOf(target, criteria.get(pairKey(target.vendor, target.product)) ?? []);
            hitsBy.set(component, hits);
            for (const key of hits.keys()) keys.add(key);
          }
          return [...keys];
        },
      });
      const stale: Array<[Component, Lookups]> = [];
      for (const entry of pending) {
        const [component, { pkg }] = entry;
        const selected: Candidates['selected'] = [];
        for (const [key, hits] of hitsBy.get(component) ?? []) {
          const record = answer.byKey.get(key);
          if (!record) break;
          // in the record's order, as matchCpe reports them
          selected.push({ record, hits: hits.sort((a, b) => a.configIndex - b.configIndex || a.criterionIndex - b.criterionIndex) });
        }
        if (selected.length !== (hitsBy.get(component)?.size ?? 0)) stale.push(entry);
        else out.set(component, { selected, packaged: pkg ? answer.byPackage.get(packageKey(pkg)) ?? [] : [] });
      }
      pending = stale;
    }
    if (pending.length > 0) throw new Error('its vulnerability records kept changing while they were read');
    return out;
  }

  /** The findings of one component from its candidates (one per vulnerability), with the image's platforms. */
  private findingsOf(component: Component, { target, pkg }: Lookups, { selected, packaged }: Candidates, platforms: MatchTarget[]): EngineFinding[] {
    const matches: RecordMatch[] = [];
    // a record found by criteria and by package is tried once
    const seen = selected.length > 0 && packaged.length > 0 ? new Set<string>() : undefined;
    for (const { record, hits } of selected) {
      seen?.add(keyOfRecord(record));
      const details: RecordMatch['details'] = matchCpeHits(component, record, target!, hits, platforms);
      if (record.packages) details.push(...matchOsv(component, record));
      if (details.length > 0) matches.push({ record, details });
    }
    for (const record of packaged) {
      if (seen?.has(keyOfRecord(record))) continue;
      const details: RecordMatch['details'] = matchCpe(component, record, target, platforms);
      details.push(...matchOsv(component, record));
      if (details.length > 0) matches.push({ record, details });
    }
    const groups = groupByAlias(matches);
    const backported = distributionAdvised(pkg, packaged);
    // the distribution's advisory for this package has the last word: a CVE it names and whose range does not
    // hold this revision (fixed by a backport) is not reported from the upstream CPE ranges
    const reported = backported.size === 0 ? groups : groups.filter((group) =>
      group.some((m) => m.details.some((d) => d.matcher === 'osv-package')) || !group.some((m) => [m.record.id, ...m.record.aliases].some((id) => backported.has(id))));
    if (reported.length === 0) return [];
    const facts = componentFacts(component);
    return reported.map((group) => buildFinding(component, group, facts));
  }

  /** The findings for one component (one per vulnerability). */
  async matchComponent(component: Component): Promise<EngineFinding[]> {
    const lookups = lookupsOf(component);
    if (!lookups.target && !lookups.pkg) return [];
    return this.findingsOf(component, lookups, (await this.candidates([[component, lookups]])).get(component)!, platformsOf([component]));
  }

  /**
   * Findings for a whole inventory. Findings with the same fingerprint (the same vulnerability in two components
   * of one name, e.g. two copies of BusyBox) become one finding with all occurrences.
   */
  async matchAll(components: Component[], problems: Problem[], progress?: (done: number) => void): Promise<EngineFinding[]> {
    const entries = components.map((c) => [c, lookupsOf(c)] as [Component, Lookups]).filter(([, l]) => l.target || l.pkg);
    const lookups = new Map(entries);
    const platforms = platformsOf(components);
    let candidates: Map<Component, Candidates>;
    const failures = new Map<Component, unknown>();
    try {
      candidates = await this.candidates(entries);
    } catch {
      // one failing lookup must not cost the others: ask again component by component
      candidates = new Map();
      for (const entry of entries) {
        try {
          candidates.set(entry[0], (await this.candidates([entry])).get(entry[0])!);
        } catch (error) {
          failures.set(entry[0], error);
        }
      }
    }
    const byFingerprint = new Map<string, EngineFinding>();
    let done = 0;
    for (const component of components) {
      try {
        if (failures.has(component)) throw failures.get(component);
        const found = candidates.get(component);
        for (const finding of found ? this.findingsOf(component, lookups.get(component)!, found, platforms) : []) {
          const existing = byFingerprint.get(finding.fingerprint);
          if (!existing) {
            byFingerprint.set(finding.fingerprint, finding);
            continue;
          }
          // a new list: a component's findings share theirs (vuln-finding.ts componentFacts)
          const paths = new Set(existing.occurrences.map((o) => o.path));
          existing.occurrences = [...existing.occurrences, ...finding.occurrences.filter((o) => !paths.has(o.path))];
          const more = (finding.match?.matches ?? []) as unknown[];
          existing.match = { ...existing.match, matches: [...((existing.match?.matches ?? []) as unknown[]), ...more] };
          if (finding.matchConfidence && finding.matchConfidence.score > (existing.matchConfidence?.score ?? -1)) existing.matchConfidence = finding.matchConfidence;
        }
      } catch (error) {
        problems.push({
          source: 'vulnerability-matcher',
          kind: 'error',
          path: component.paths[0],
          message: `matching ${component.name} ${component.version ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`,
        });
      }
      progress?.(++done);
    }
    return [...byFingerprint.values()];
  }
}

// Matches an inventory against a VulnerabilitySource: candidates by CPE (vendor, product) and by OSV package,
// each record tried by the CPE and OSV matchers, records that alias each other merged so that one vulnerability
// is one finding per component. A failing lookup for one component is reported and the rest go on.
import type { Component, EngineFinding, Problem } from '../types.js';
import { componentCpe, matchCpe } from './cpe-matcher.js';
import { unescapeCpe } from './cpe.js';
import { componentPackage, matchOsv } from './osv-matcher.js';
import type { VulnerabilityRecord, VulnerabilitySource } from './source.js';
import { buildFinding, type RecordMatch } from './vuln-finding.js';

/** Groups matches whose records share an id or alias (union-find over ids). */
function groupByAlias(matches: RecordMatch[]): RecordMatch[][] {
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
  private readonly products = new Map<string, Promise<VulnerabilityRecord[]>>();
  private readonly packages = new Map<string, Promise<VulnerabilityRecord[]>>();

  constructor(private readonly source: VulnerabilitySource) {}

  private candidates(component: Component): Promise<VulnerabilityRecord[]>[] {
    const lookups: Promise<VulnerabilityRecord[]>[] = [];
    const target = componentCpe(component);
    if (target) {
      const vendor = unescapeCpe(target.cpe.vendor);
      const product = unescapeCpe(target.cpe.product);
      const key = `${vendor}\0${product}`;
      if (!this.products.has(key)) this.products.set(key, this.source.byProduct(vendor, product));
      lookups.push(this.products.get(key)!);
    }
    const pkg = componentPackage(component);
    if (pkg && this.source.byPackage) {
      const key = `${pkg.ecosystem}\0${pkg.name}`;
      if (!this.packages.has(key)) this.packages.set(key, this.source.byPackage(pkg.ecosystem, pkg.name));
      lookups.push(this.packages.get(key)!);
    }
    return lookups;
  }

  /** Looks up every (vendor, product) of the inventory at once when the source can (a failure falls back to one by one). */
  private async prefetch(components: Component[], problems: Problem[]): Promise<void> {
    if (!this.source.byProducts) return;
    const pairs = new Map<string, [string, string]>();
    for (const component of components) {
      const target = componentCpe(component);
      if (!target) continue;
      const pair: [string, string] = [unescapeCpe(target.cpe.vendor), unescapeCpe(target.cpe.product)];
      const key = pair.join('\0');
      if (!this.products.has(key)) pairs.set(key, pair);
    }
    if (pairs.size === 0) return;
    try {
      const found = await this.source.byProducts([...pairs.values()]);
      for (const key of pairs.keys()) this.products.set(key, Promise.resolve(found.get(key) ?? []));
    } catch (error) {
      problems.push({ source: 'vulnerability-matcher', kind: 'warning', message: `batch lookup failed, matching one by one: ${error instanceof Error ? error.message : String(error)}` });
    }
  }

  /** The findings for one component (one per vulnerability). */
  async matchComponent(component: Component): Promise<EngineFinding[]> {
    const records = (await Promise.all(this.candidates(component))).flat();
    const seen = new Set<VulnerabilityRecord>();
    const matches: RecordMatch[] = [];
    const target = componentCpe(component);
    for (const record of records) {
      if (seen.has(record)) continue;
      seen.add(record);
      const details: RecordMatch['details'] = matchCpe(component, record, target);
      if (record.packages) details.push(...matchOsv(component, record));
      if (details.length > 0) matches.push({ record, details });
    }
    return groupByAlias(matches).map((group) => buildFinding(component, group));
  }

  /**
   * Findings for a whole inventory. Findings with the same fingerprint (the same vulnerability in two components
   * of one name, e.g. two copies of BusyBox) become one finding with all occurrences.
   */
  async matchAll(components: Component[], problems: Problem[], progress?: (done: number) => void): Promise<EngineFinding[]> {
    await this.prefetch(components, problems);
    const byFingerprint = new Map<string, EngineFinding>();
    let done = 0;
    for (const component of components) {
      try {
        for (const finding of await this.matchComponent(component)) {
          const existing = byFingerprint.get(finding.fingerprint);
          if (!existing) {
            byFingerprint.set(finding.fingerprint, finding);
            continue;
          }
          const paths = new Set(existing.occurrences.map((o) => o.path));
          existing.occurrences.push(...finding.occurrences.filter((o) => !paths.has(o.path)));
          const more = (finding.match?.matches ?? []) as unknown[];
          existing.match = { ...existing.match, matches: [...((existing.match?.matches ?? []) as unknown[]), ...more] };
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

// Matches an inventory against a VulnerabilitySource: candidates by CPE (vendor, product) and by OSV package,
// each record tried by the CPE and OSV matchers, records that alias each other merged so that one vulnerability
// is one finding per component. A source that serves criteria (criteriaFor) is asked for those first, and only
// the records with a matching criterion are loaded. A failing lookup for one component is reported and the rest go on.
import type { Component, EngineFinding, Problem } from '../types.js';
import { criterionMatch, matchCpe, matchCpeHits, matchTarget, type CriterionHit, type MatchTarget } from './cpe-matcher.js';
import { keyOfRecord, keysAdmit, recordKey } from './criteria-index.js';
import { componentPackage, matchOsv } from './osv-matcher.js';
import type { VulnerabilityRecord, VulnerabilitySource } from './source.js';
import { versionKey } from './version-key.js';
import { buildFinding, type RecordMatch } from './vuln-finding.js';

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
  private readonly products = new Map<string, Promise<VulnerabilityRecord[]>>();
  private readonly packages = new Map<string, Promise<VulnerabilityRecord[]>>();
  /**
   * Per component, the records with a criterion that matches it and those criteria (criteria-first sources, see
   * selectByCriteria), so that matching them needs no second test.
   */
  private readonly selected = new Map<Component, Array<{ record: VulnerabilityRecord; hits: CriterionHit[] }>>();

  constructor(private readonly source: VulnerabilitySource) {}

  private candidates(component: Component, target: MatchTarget | undefined): Array<VulnerabilityRecord[] | Promise<VulnerabilityRecord[]>> {
    const lookups: Array<VulnerabilityRecord[] | Promise<VulnerabilityRecord[]>> = [];
    if (target && !this.selected.has(component)) {
      const key = `${target.vendor}\0${target.product}`;
      if (!this.products.has(key)) this.products.set(key, this.source.byProduct(target.vendor, target.product));
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

  /**
   * Criteria first, when the source can: the stored criteria of the inventory's (vendor, product) pairs are tested
   * here with the matcher's own criterion test, and only the records with a matching criterion are loaded. A
   * record none of whose criteria matches cannot match (matchCpe reports matching criteria only), so the result
   * is the same as matching every candidate record. A failure falls back to the record lookups.
   */
  private async selectByCriteria(targets: Array<[Component, MatchTarget]>, problems: Problem[]): Promise<boolean> {
    const { criteriaFor, recordsByKeys } = this.source;
    if (!criteriaFor || !recordsByKeys || targets.length === 0) return false;
    try {
      const queries = new Map<string, { vendor: string; product: string; version: string }>();
      for (const [, t] of targets) queries.set(`${t.vendor}\0${t.product}\0${t.version}`, { vendor: t.vendor, product: t.product, version: t.version });
      const criteria = await criteriaFor.call(this.source, [...queries.values()]);
      const wanted = new Map<Component, Map<string, CriterionHit[]>>();
      for (const [component, t] of targets) {
        const hits = new Map<string, CriterionHit[]>();
        const version = versionKey(t.version);
        for (const c of criteria.get(`${t.vendor}\0${t.product}`) ?? []) {
          // the version keys settle most criteria with two string comparisons
          if (version !== undefined && !keysAdmit(c.keys, version)) continue;
          const kind = criterionMatch(c, t);
          if (!kind) continue;
          const key = recordKey(c.source, c.recordId, c.recordStamp);
          const hit = { configIndex: c.configIndex, criterionIndex: c.criterionIndex, view: c, kind };
          const list = hits.get(key);
          if (list) list.push(hit);
          else hits.set(key, [hit]);
        }
        wanted.set(component, hits);
      }
      const records = await recordsByKeys.call(this.source, [...new Set([...wanted.values()].flatMap((h) => [...h.keys()]))]);
      for (const [component, hits] of wanted) {
        const selected: Array<{ record: VulnerabilityRecord; hits: CriterionHit[] }> = [];
        for (const [key, list] of hits) {
          const record = records.get(key);
          // changed since its criteria were read (or gone): this component is matched against its records instead
          if (!record) break;
          // in the record's order, as matchCpe reports them
          selected.push({ record, hits: list.sort((a, b) => a.configIndex - b.configIndex || a.criterionIndex - b.criterionIndex) });
        }
        if (selected.length === hits.size) this.selected.set(component, selected);
      }
      return true;
    } catch (error) {
      this.selected.clear();
      problems.push({ source: 'vulnerability-matcher', kind: 'warning', message: `criteria lookup failed, matching by records: ${error instanceof Error ? error.message : String(error)}` });
      return false;
    }
  }

  /** Looks up every (vendor, product) of the inventory at once when the source can (a failure falls back to one by one). */
  private async prefetch(components: Component[], problems: Problem[]): Promise<void> {
    const targets = components.map((c) => [c, matchTarget(c)] as const).filter((t): t is [Component, MatchTarget] => t[1] !== undefined);
    if (await this.selectByCriteria(targets, problems)) return;
    if (!this.source.byProducts) return;
    const pairs = new Map<string, [string, string]>();
    for (const [, t] of targets) {
      const key = `${t.vendor}\0${t.product}`;
      if (!this.products.has(key)) pairs.set(key, [t.vendor, t.product]);
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
    const target = matchTarget(component);
    const selected = this.selected.get(component);
    const lookups = this.candidates(component, target);
    const records = lookups.length === 1 ? await lookups[0]! : (await Promise.all(lookups)).flat();
    const matches: RecordMatch[] = [];
    // a record found by criteria, by product or by package is tried once (stores may hand out two copies of it)
    const seen = lookups.length + (selected ? 1 : 0) > 1 ? new Set<string>() : undefined;
    for (const { record, hits } of selected ?? []) {
      seen?.add(keyOfRecord(record));
      const details: RecordMatch['details'] = matchCpeHits(component, record, target!, hits);
      if (record.packages) details.push(...matchOsv(component, record));
      if (details.length > 0) matches.push({ record, details });
    }
    for (const record of records) {
      if (seen) {
        const key = keyOfRecord(record);
        if (seen.has(key)) continue;
        seen.add(key);
      }
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

// The CPE matcher (grype's default): a component's CPE (vendor, product, version) against NVD criteria, exact
// versions and ranges alike. Every match says how it was made: the criterion, the range or version it matched,
// the version scheme and the platform criteria of its configuration.
import type { Component } from '../types.js';
import { attributeMatches, CPE_ATTRIBUTES, cpeHasWildcard, cpeWildcardRegExp, parseCpe, unescapeCpe, type Cpe } from '../cpe.js';
import type { CpeCriterion, VulnerabilityRecord } from './source.js';
import { genericScheme, inRange } from './version.js';

const OTHERS = CPE_ATTRIBUTES.filter((a) => !['part', 'vendor', 'product', 'version', 'update'].includes(a));

export interface CpeMatchDetails {
  matcher: 'cpe';
  scheme: string;
  componentCpe: string;
  version: string;
  criterion: string;
  /** 'range' (versionStart/End bounds), 'exact' (the criterion names the version) or 'all-versions'. */
  kind: 'range' | 'exact' | 'all-versions';
  range?: { startIncluding?: string; startExcluding?: string; endIncluding?: string; endExcluding?: string };
  /** Non-vulnerable criteria of the same configuration (the platform it runs on or with). */
  platform?: string[];
  /**
   * The platform evaluated against the image's identified platforms (hardware and operating system components):
   * 'matched', or 'unknown' when the image identifies none of that kind. A platform of another device is no match.
   */
  platformStatus?: 'matched' | 'unknown';
  /** The criterion's CPE came from the CVE 5 record's names (see CpeCriterion.origin). */
  origin?: 'alias' | 'name';
  /** The first version outside the range, when the criterion gives one (versionEndExcluding). */
  fixedIn?: string;
}

/**
 * What the matcher compares of one criterion: its CPE attributes (vendor and product unescaped, the others as
 * written, lower-case) and its range bounds. Built once per record criterion (prepare, below), or read from the
 * stored criteria index, so a database can answer the matcher without loading whole records.
 */
export interface CriterionView {
  vulnerable: boolean;
  part: string;
  vendor: string;
  product: string;
  version: string;
  update: string;
  /** Edition, language, sw edition, target sw, target hw and other, in that order; null when all are ANY. */
  others: string[] | null;
  versionStartIncluding?: string;
  versionStartExcluding?: string;
  versionEndIncluding?: string;
  versionEndExcluding?: string;
}

/** The component side of a match: its CPE, the version to compare and its unescaped vendor and product. */
export interface MatchTarget {
  cpe: Cpe;
  version: string;
  vendor: string;
  product: string;
}

/** The view of a criterion, or null when its CPE does not parse. */
export function criterionView(criterion: CpeCriterion): CriterionView | null {
  const crit = parseCpe(criterion.criteria);
  if (!crit) return null;
  // one object shape for every view (absent bounds are undefined, not missing): the matcher's loop over many
  // views stays monomorphic
  return {
    vulnerable: criterion.vulnerable, part: crit.part, vendor: unescapeCpe(crit.vendor), product: unescapeCpe(crit.product),
    version: crit.version, update: crit.update, others: OTHERS.every((a) => crit[a] === '*' || crit[a] === '') ? null : OTHERS.map((a) => crit[a]),
    versionStartIncluding: criterion.versionStartIncluding || undefined, versionStartExcluding: criterion.versionStartExcluding || undefined,
    versionEndIncluding: criterion.versionEndIncluding || undefined, versionEndExcluding: criterion.versionEndExcluding || undefined,
  };
}

// criteria objects are shared and immutable, so each is parsed once
const prepared = new WeakMap<CpeCriterion, CriterionView | null>();
function prepare(criterion: CpeCriterion): CriterionView | null {
  let p = prepared.get(criterion);
  if (p === undefined) prepared.set(criterion, (p = criterionView(criterion)));
  return p;
}

/** The component's CPE and the version to compare ('*' in the CPE falls back to the component version). */
export function componentCpe(component: Component): { cpe: Cpe; version: string } | undefined {
  if (!component.cpe) return undefined;
  const cpe = parseCpe(component.cpe);
  if (!cpe) return undefined;
  const fromCpe = cpe.version === '*' || cpe.version === '-' || cpe.version === '' ? undefined : unescapeCpe(cpe.version);
  const version = fromCpe ?? component.version;
  if (!version) return undefined;
  return { cpe, version };
}

export function matchTarget(component: Component): MatchTarget | undefined {
  const target = componentCpe(component);
  return target && { ...target, vendor: unescapeCpe(target.cpe.vendor), product: unescapeCpe(target.cpe.product) };
}

/** Which way the criterion's version part admits the component's version; undefined when it does not. */
function versionMatches(crit: CriterionView, cpe: Cpe, version: string): CpeMatchDetails['kind'] | undefined {
  if (crit.version === '*' || crit.version === '') {
    const { versionStartIncluding: startIncluding, versionStartExcluding: startExcluding, versionEndIncluding: endIncluding, versionEndExcluding: endExcluding } = crit;
    if (!startIncluding && !startExcluding && !endIncluding && !endExcluding) return 'all-versions';
    // a version that cannot be compared to the bounds is not reported: no match without a reason
    return inRange(genericScheme, version, { startIncluding, startExcluding, endIncluding, endExcluding }) === true ? 'range' : undefined;
  }
  if (crit.version === '-') return undefined;
  const critVersion = unescapeCpe(crit.version);
  const specificUpdate = !['*', '-', ''].includes(crit.update);
  if (specificUpdate) {
    // 'linux_kernel:5.16:rc1' names the pre-release: the component must be that pre-release too
    const combined = `${critVersion}-${unescapeCpe(crit.update)}`;
    const sameUpdate = cpe.update === crit.update && genericScheme.compare(version, critVersion) === 0;
    return sameUpdate || genericScheme.compare(version, combined) === 0 ? 'exact' : undefined;
  }
  if (cpeHasWildcard(crit.version)) return cpeWildcardRegExp(crit.version).test(version) ? 'exact' : undefined;
  const c = genericScheme.compare(version, critVersion);
  const equal = c === undefined ? version.toLowerCase() === critVersion : c === 0;
  return equal ? 'exact' : undefined;
}

/**
 * Whether one criterion applies to the component's CPE and version, and which way ('range', 'exact',
 * 'all-versions'); undefined when it does not. The one test both the record matcher below and the matcher's
 * criteria pre-selection use, so that pre-selection is exact.
 */
export function criterionMatch(crit: CriterionView, target: MatchTarget): CpeMatchDetails['kind'] | undefined {
  if (!crit.vulnerable || crit.product !== target.product || crit.vendor !== target.vendor) return undefined;
  const { cpe } = target;
  if (!attributeMatches(crit.part, cpe.part)) return undefined;
  if (crit.others && !OTHERS.every((a, i) => attributeMatches(crit.others![i]!, cpe[a]))) return undefined;
  return versionMatches(crit, cpe, target.version);
}

/** The range details of a range match: its bounds and the first version outside it (versionEndExcluding). */
function rangeDetails(crit: CriterionView): Pick<CpeMatchDetails, 'range' | 'fixedIn'> {
  // the bounds present, in this order (a finding's JSON keeps it); built field by field, as every range match of a
  // scan (thousands for a kernel) goes through here
  const range: NonNullable<CpeMatchDetails['range']> = {};
  if (crit.versionStartIncluding) range.startIncluding = crit.versionStartIncluding;
  if (crit.versionStartExcluding) range.startExcluding = crit.versionStartExcluding;
  if (crit.versionEndIncluding) range.endIncluding = crit.versionEndIncluding;
  if (crit.versionEndExcluding) range.endExcluding = crit.versionEndExcluding;
  return crit.versionEndExcluding ? { range, fixedIn: crit.versionEndExcluding } : { range };
}

/**
 * An AND configuration's platform against the image's platforms: 'matched' when one of its criteria holds for an
 * identified platform of its kind, 'other' when the image identifies platforms of that kind and none holds,
 * 'unknown' when it identifies none. A platform criterion's version '-' (NA) stands for the platform in general.
 */
export function platformVerdict(platform: CpeCriterion[], platforms: MatchTarget[]): 'matched' | 'other' | 'unknown' {
  let evidence = false;
  for (const criterion of platform) {
    const view = prepare(criterion);
    if (!view) continue;
    const candidates = platforms.filter((t) => attributeMatches(view.part, t.cpe.part));
    if (candidates.length === 0) continue;
    evidence = true;
    const asked = { ...view, vulnerable: true, version: view.version === '-' ? '*' : view.version };
    if (candidates.some((t) => criterionMatch(asked, t) !== undefined)) return 'matched';
  }
  return evidence ? 'other' : 'unknown';
}

/**
 * The details of one matching criterion at `group[index]` of a record; undefined when its configuration's
 * platform names another device or system than the image's (vulnerable: false criteria never match alone).
 */
function details(component: Component, target: MatchTarget, group: CpeCriterion[], criterion: CpeCriterion, view: CriterionView, kind: CpeMatchDetails['kind'], platforms: MatchTarget[]): CpeMatchDetails | undefined {
  const platformCriteria = group.filter((c) => !c.vulnerable);
  const platform = platformCriteria.map((c) => c.criteria);
  const verdict = platformCriteria.length > 0 ? platformVerdict(platformCriteria, platforms) : undefined;
  if (verdict === 'other') return undefined;
  return {
    matcher: 'cpe',
    scheme: genericScheme.id,
    componentCpe: component.cpe!,
    version: target.version,
    criterion: criterion.criteria,
    kind,
    ...(kind === 'range' ? rangeDetails(view) : {}),
    ...(platform.length > 0 ? { platform, platformStatus: verdict as 'matched' | 'unknown' } : {}),
    ...(criterion.origin ? { origin: criterion.origin } : {}),
  };
}

/** How the record applies to the component, one entry per matching criterion; empty when it does not. */
export function matchCpe(component: Component, record: VulnerabilityRecord, target = matchTarget(component), platforms: MatchTarget[] = []): CpeMatchDetails[] {
  if (!target) return [];
  const matches: CpeMatchDetails[] = [];
  for (const group of record.criteria) {
    for (const criterion of group) {
      if (!criterion.vulnerable) continue;
      const p = prepare(criterion);
      if (!p) continue;
      const kind = criterionMatch(p, target);
      const d = kind && details(component, target, group, criterion, p, kind, platforms);
      if (d) matches.push(d);
    }
  }
  return matches;
}

/** A criterion of a record already found to match (by the criteria index), with the way it matched. */
export interface CriterionHit {
  configIndex: number;
  criterionIndex: number;
  view: CriterionView;
  kind: CpeMatchDetails['kind'];
}

/**
 * matchCpe's answer built from the criteria that matched in the index, without testing the record's criteria
 * again. The hits must come from the same version of the record (the stores' stamps ensure it) and be every
 * matching criterion of it; a hit that points at no criterion means they do not, and the record is matched whole.
 */
export function matchCpeHits(component: Component, record: VulnerabilityRecord, target: MatchTarget, hits: CriterionHit[], platforms: MatchTarget[] = []): CpeMatchDetails[] {
  const matches: CpeMatchDetails[] = [];
  for (const hit of hits) {
    const group = record.criteria[hit.configIndex];
    const criterion = group?.[hit.criterionIndex];
    if (!group || !criterion) return matchCpe(component, record, target, platforms);
    const d = details(component, target, group, criterion, hit.view, hit.kind, platforms);
    if (d) matches.push(d);
  }
  return matches;
}

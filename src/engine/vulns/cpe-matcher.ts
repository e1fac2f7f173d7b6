// The CPE matcher (grype's default): a component's CPE (vendor, product, version) against NVD criteria, exact
// versions and ranges alike. Every match says how it was made: the criterion, the range or version it matched,
// the version scheme and the platform criteria of its configuration.
import type { Component } from '../types.js';
import { attributeMatches, CPE_ATTRIBUTES, cpeHasWildcard, cpeWildcardRegExp, parseCpe, unescapeCpe, type Cpe } from './cpe.js';
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
  /** Non-vulnerable criteria of the same configuration (the platform), recorded but not required. */
  platform?: string[];
  /** The first version outside the range, when the criterion gives one (versionEndExcluding). */
  fixedIn?: string;
}

/** A criterion's CPE parsed once, with what the hot loop compares (criteria objects are shared and immutable). */
interface Prepared {
  crit: Cpe;
  vendor: string;
  product: string;
  /** True when edition, language, sw/hw targets and other are all ANY (almost every NVD criterion). */
  othersAny: boolean;
}
const prepared = new WeakMap<CpeCriterion, Prepared | null>();
function prepare(criterion: CpeCriterion): Prepared | null {
  let p = prepared.get(criterion);
  if (p === undefined) {
    const crit = parseCpe(criterion.criteria);
    p = crit
      ? { crit, vendor: unescapeCpe(crit.vendor), product: unescapeCpe(crit.product), othersAny: OTHERS.every((a) => crit[a] === '*' || crit[a] === '') }
      : null;
    prepared.set(criterion, p);
  }
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

function versionMatches(criterion: CpeCriterion, crit: Cpe, cpe: Cpe, version: string): Omit<CpeMatchDetails, 'matcher' | 'scheme' | 'componentCpe' | 'version' | 'criterion' | 'platform'> | undefined {
  if (crit.version === '*' || crit.version === '') {
    const { versionStartIncluding: si, versionStartExcluding: se, versionEndIncluding: ei, versionEndExcluding: ee } = criterion;
    if (!si && !se && !ei && !ee) return { kind: 'all-versions' };
    const bounds = { startIncluding: si, startExcluding: se, endIncluding: ei, endExcluding: ee };
    // a version that cannot be compared to the bounds is not reported: no match without a reason
    if (inRange(genericScheme, version, bounds) !== true) return undefined;
    const range = Object.fromEntries(Object.entries(bounds).filter(([, v]) => v)) as CpeMatchDetails['range'];
    return { kind: 'range', range, ...(ee ? { fixedIn: ee } : {}) };
  }
  if (crit.version === '-') return undefined;
  const critVersion = unescapeCpe(crit.version);
  const specificUpdate = !['*', '-', ''].includes(crit.update);
  if (specificUpdate) {
    // 'linux_kernel:5.16:rc1' names the pre-release: the component must be that pre-release too
    const combined = `${critVersion}-${unescapeCpe(crit.update)}`;
    const sameUpdate = cpe.update === crit.update && genericScheme.compare(version, critVersion) === 0;
    return sameUpdate || genericScheme.compare(version, combined) === 0 ? { kind: 'exact' } : undefined;
  }
  if (cpeHasWildcard(crit.version)) return cpeWildcardRegExp(crit.version).test(version) ? { kind: 'exact' } : undefined;
  const c = genericScheme.compare(version, critVersion);
  const equal = c === undefined ? version.toLowerCase() === critVersion : c === 0;
  return equal ? { kind: 'exact' } : undefined;
}

/** How the record applies to the component, one entry per matching criterion; empty when it does not. */
export function matchCpe(component: Component, record: VulnerabilityRecord, target = componentCpe(component)): CpeMatchDetails[] {
  if (!target) return [];
  const { cpe, version } = target;
  const vendor = unescapeCpe(cpe.vendor);
  const product = unescapeCpe(cpe.product);
  const matches: CpeMatchDetails[] = [];
  for (const group of record.criteria) {
    for (const criterion of group) {
      if (!criterion.vulnerable) continue;
      const p = prepare(criterion);
      if (!p || p.product !== product || p.vendor !== vendor) continue;
      const crit = p.crit;
      if (!attributeMatches(crit.part, cpe.part)) continue;
      if (!p.othersAny && !OTHERS.every((a) => attributeMatches(crit[a], cpe[a]))) continue;
      const how = versionMatches(criterion, crit, cpe, version);
      if (!how) continue;
      const platform = group.filter((c) => !c.vulnerable).map((c) => c.criteria);
      matches.push({
        matcher: 'cpe',
        scheme: genericScheme.id,
        componentCpe: component.cpe!,
        version,
        criterion: criterion.criteria,
        ...how,
        ...(platform.length > 0 ? { platform } : {}),
      });
    }
  }
  return matches;
}

// The OSV package matcher, chosen by purl type: a component's purl against OSV affected packages, with the
// ecosystem's own version scheme (dpkg for Debian/Ubuntu, opkg for OpenWrt, rpm for Red Hat family and SUSE, generic
// otherwise).
// Range events are evaluated as the OSV schema specifies.
import type { Component } from '../types.js';
import { osvEcosystem, parsePurl, type Purl } from '../purl.js';
import type { AffectedPackage, VulnerabilityRecord } from './source.js';
import { genericScheme, type VersionScheme } from './version.js';
import { dpkgScheme } from './version-dpkg.js';
import { opkgScheme } from './version-opkg.js';
import { rpmScheme } from './version-rpm.js';

export interface OsvMatchDetails {
  matcher: 'osv-package';
  scheme: string;
  purl: string;
  ecosystem: string;
  package: string;
  version: string;
  kind: 'range' | 'exact';
  events?: AffectedPackage['ranges'][number]['events'];
  fixedIn?: string;
}

export function schemeForEcosystem(ecosystem: string): VersionScheme {
  const base = ecosystem.split(':')[0]!;
  if (base === 'Debian' || base === 'Ubuntu') return dpkgScheme;
  if (base === 'OpenWrt') return opkgScheme;
  if (['Red Hat', 'Rocky Linux', 'AlmaLinux', 'openSUSE', 'SUSE', 'Mageia'].includes(base)) return rpmScheme;
  return genericScheme;
}

/** The package name as OSV spells it for this purl type. */
export function osvPackageName(purl: Purl): string {
  if (!purl.namespace) return purl.name;
  if (purl.type === 'maven') return `${purl.namespace}:${purl.name}`;
  if (purl.type === 'npm' || purl.type === 'golang' || purl.type === 'composer') return `${purl.namespace}/${purl.name}`;
  return purl.name;
}

export function componentPackage(component: Component): { purl: Purl; ecosystem: string; name: string; version: string } | undefined {
  if (!component.purl) return undefined;
  const purl = parsePurl(component.purl);
  const ecosystem = purl ? osvEcosystem(purl) : undefined;
  const version = purl?.version ?? component.version;
  if (!purl || !ecosystem || !version) return undefined;
  return { purl, ecosystem, name: osvPackageName(purl), version };
}

/** OSV evaluation: affected from an `introduced` at or below the version until a `fixed`/`last_affected` bound. */
function evaluate(scheme: VersionScheme, version: string, events: AffectedPackage['ranges'][number]['events']): { affected: boolean; fixedIn?: string } | undefined {
  const bound = (e: (typeof events)[number]) => e.introduced ?? e.fixed ?? e.last_affected ?? e.limit ?? '0';
  const sorted = [...events].sort((a, b) => (bound(a) === '0' ? -1 : bound(b) === '0' ? 1 : scheme.compare(bound(a), bound(b)) ?? 0));
  let affected = false;
  let fixedIn: string | undefined;
  for (const e of sorted) {
    if (e.introduced !== undefined) {
      const c = e.introduced === '0' ? 1 : scheme.compare(version, e.introduced);
      if (c === undefined) return undefined;
      if (c >= 0) {
        affected = true;
        fixedIn = undefined;
      }
    } else if (e.fixed !== undefined) {
      const c = scheme.compare(version, e.fixed);
      if (c === undefined) return undefined;
      if (c >= 0) affected = false;
      else if (affected && fixedIn === undefined) fixedIn = e.fixed;
    } else if (e.last_affected !== undefined) {
      const c = scheme.compare(version, e.last_affected);
      if (c === undefined) return undefined;
      if (c > 0) affected = false;
    }
  }
  return affected ? (fixedIn ? { affected, fixedIn } : { affected }) : { affected };
}

export function matchOsv(component: Component, record: VulnerabilityRecord): OsvMatchDetails[] {
  const target = componentPackage(component);
  if (!target || !record.packages) return [];
  const matches: OsvMatchDetails[] = [];
  for (const pkg of record.packages) {
    if (pkg.ecosystem.split(':')[0] !== target.ecosystem || pkg.name !== target.name) continue;
    const scheme = schemeForEcosystem(pkg.ecosystem);
    const base = { matcher: 'osv-package' as const, scheme: scheme.id, purl: component.purl!, ecosystem: pkg.ecosystem, package: pkg.name, version: target.version };
    if (pkg.versions.includes(target.version)) {
      matches.push({ ...base, kind: 'exact' });
      continue;
    }
    for (const range of pkg.ranges) {
      const result = evaluate(range.type === 'SEMVER' ? genericScheme : scheme, target.version, range.events);
      if (result?.affected) {
        matches.push({ ...base, kind: 'range', events: range.events, ...(result.fixedIn ? { fixedIn: result.fixedIn } : {}) });
        break;
      }
    }
  }
  return matches;
}

// Seeded random CPE criteria and records for the tests that compare the criteria-first path with plain
// record-by-record matching: plain and other versions, wildcards, updates, every kind of bound, platforms.
import { rng } from '../../../bench/vulns/generate.js';
import type { CpeCriterion, VulnerabilityRecord } from '../../../src/engine/vulns/source.js';
import type { Component } from '../../../src/engine/types.js';

export { rng };

/** Plain versions with the awkward cases: zero parts, trailing zeros, leading zeros, long numbers. */
export function plainVersion(random: () => number): string {
  const parts = 1 + Math.floor(random() * 4);
  return Array.from({ length: parts }, () => {
    const r = random();
    if (r < 0.25) return '0';
    if (r < 0.3) return '00';
    if (r < 0.35) return '010';
    if (r < 0.45) return String(Math.floor(random() * 1e9));
    return String(Math.floor(random() * 12));
  }).join('.');
}

/** A version that is sometimes not plain ('1.0.2k', a pre-release, an SVN revision). */
export function anyVersion(random: () => number): string {
  return random() < 0.15 ? ['1.0.2k', '2.0-rc1', 'r100', '3'][Math.floor(random() * 4)]! : plainVersion(random);
}

export function randomCriterion(random: () => number, product = 'widget'): CpeCriterion {
  const v = () => (random() < 0.05 ? '*' : anyVersion(random));
  const vulnerable = random() < 0.9;
  if (random() < 0.3) return { criteria: `cpe:2.3:a:acme:${product}:${random() < 0.1 ? '1.*' : v()}:${random() < 0.1 ? 'rc1' : '*'}:*:*:*:*:*:*`, vulnerable };
  const c: CpeCriterion = { criteria: `cpe:2.3:a:acme:${product}:*:*:*:*:*:*:*:*`, vulnerable };
  if (random() < 0.5) c.versionStartIncluding = v();
  else if (random() < 0.3) c.versionStartExcluding = v();
  if (random() < 0.6) c.versionEndExcluding = v();
  else if (random() < 0.6) c.versionEndIncluding = v();
  return c;
}

/** `count` records over products p0..p{products-1}, one to three criteria each. */
export function randomRecords(random: () => number, count: number, products = 10): VulnerabilityRecord[] {
  return Array.from({ length: count }, (_, n) => ({
    id: `CVE-2099-${1000 + n}`, aliases: [], source: 'nvd', cwes: [], cvss: {}, references: [], modified: '2024-01-01T00:00:00.000Z',
    criteria: [Array.from({ length: 1 + Math.floor(random() * 3) }, () => randomCriterion(random, `p${Math.floor(random() * products)}`))],
  }));
}

export function component(vendor: string, product: string, version: string): Component {
  return { ref: `${product}@${version}`, name: product, version, type: 'library', confidence: 1, cpe: `cpe:2.3:a:${vendor}:${product}:${version}:*:*:*:*:*:*:*`, paths: [`lib/${product}`], evidence: [], foundBy: ['test'] };
}

/** An inventory over p0..p{products-1}, with a few non-plain versions and one product asked at two versions. */
export function randomInventory(random: () => number, count: number, products = 10): Component[] {
  const out = Array.from({ length: count }, (_, i) => component('acme', `p${i % products}`, anyVersion(random)));
  out.push({ ...component('acme', 'p0', plainVersion(random)), name: 'p0-copy' });
  return out;
}

/** What a match result is, for comparing two of them: each finding's fingerprint with how it was matched. */
export function matchSummary(findings: Array<{ fingerprint: string; match?: unknown }>): string[] {
  return findings.map((x) => `${x.fingerprint} ${JSON.stringify(x.match)}`).sort();
}

// CVSS base scores from vectors (OSV gives vectors only) and severity from the latest CVSS version a record has.
// The scores come from ae-cvss-calculator (Apache-2.0, no dependencies): the formulas of the FIRST v2 and v3.x
// specifications and, for v4 (which has no formula), the MacroVector lookup table of the FIRST calculator.
import { createRequire } from 'node:module';
import type cvssTypes from 'ae-cvss-calculator';
import type { Severity } from '../types.js';
import type { VulnerabilityRecord } from './source.js';

type CvssVector = InstanceType<typeof cvssTypes.Cvss2>
  | InstanceType<typeof cvssTypes.Cvss3P0>
  | InstanceType<typeof cvssTypes.Cvss3P1>
  | InstanceType<typeof cvssTypes.Cvss4P0>;

/** The calculator (40 ms to load) is loaded on the first score: a scan without vulnerability records needs none. */
let calculatorModule: typeof cvssTypes | undefined;
const calculator = (): typeof cvssTypes => (calculatorModule ??= createRequire(import.meta.url)('ae-cvss-calculator') as typeof cvssTypes);

/** The base score of a parsed vector; undefined when a base metric is missing or any metric or value is unknown. */
function baseScore(parse: () => CvssVector): number | undefined {
  try {
    const vector = parse();
    return vector.isBaseFullyDefined() ? vector.calculateScores().base : undefined;
  } catch {
    return undefined; // an unknown metric or value, or no vector at all
  }
}

/** Base score of a CVSS v3.0/v3.1 vector ('CVSS:3.1/AV:N/...'); undefined when the vector is incomplete. */
export function cvss3BaseScore(vector: string): number | undefined {
  return baseScore(() => vector.startsWith('CVSS:3.0/') ? new (calculator().Cvss3P0)(vector) : new (calculator().Cvss3P1)(vector));
}

/** Base score of a CVSS v2 vector ('AV:N/AC:L/Au:N/C:P/I:P/A:P', parentheses allowed). */
export function cvss2BaseScore(vector: string): number | undefined {
  return baseScore(() => new (calculator().Cvss2)(vector.replace(/^\(|\)$/g, '')));
}

/**
 * Score of a CVSS v4.0 vector ('CVSS:4.0/AV:N/...') as the FIRST calculator gives it for the vector as written
 * (CVSS-B for a base vector; threat or environmental metrics, when present, count as they do there and in NVD's
 * baseScore). Undefined when a base metric is missing or any metric or value is unknown.
 */
export function cvss4BaseScore(vector: string): number | undefined {
  if (!vector.startsWith('CVSS:4.0/')) return undefined;
  return baseScore(() => new (calculator().Cvss4P0)(vector));
}

/**
 * The base score of the newest CVSS version the record carries (v4, then v3.x, then v2), whoever scored it: the
 * importers choose one entry per version (NVD's Primary over a CNA's Secondary), never across versions.
 */
export function latestBaseScore(cvss: VulnerabilityRecord['cvss']): { version: 2 | 3 | 4; score: number } | undefined {
  if (cvss.v4) return { version: 4, score: cvss.v4.baseScore };
  if (cvss.v3) return { version: 3, score: cvss.v3.baseScore };
  if (cvss.v2) return { version: 2, score: cvss.v2.baseScore };
  return undefined;
}

/** Qualitative severity of the latest CVSS score (v3/v4 bands; v2 has no 'critical'); 'informational' without one. */
export function severityOf(cvss: VulnerabilityRecord['cvss']): Severity {
  const latest = latestBaseScore(cvss);
  if (!latest || latest.score === 0) return 'informational';
  const s = latest.score;
  if (latest.version !== 2 && s >= 9) return 'critical';
  if (s >= 7) return 'high';
  if (s >= 4) return 'medium';
  return 'low';
}

const RANK: Record<Severity, number> = { informational: 0, low: 1, medium: 2, high: 3, critical: 4 };
export const severityRank = (s: Severity): number => RANK[s];

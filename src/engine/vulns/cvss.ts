// CVSS base scores from vectors (OSV gives vectors only) and severity from the latest CVSS version a record has.
// v3.x and v2: the formulas of the FIRST specifications. v4 has no formula: its score comes from the MacroVector
// lookup table of the FIRST calculator, which ae-cvss-calculator (Apache-2.0, no dependencies) implements.
import cvssCalculator from 'ae-cvss-calculator';
import type { Severity } from '../types.js';
import type { VulnerabilityRecord } from './source.js';

function metrics(vector: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of vector.split('/')) {
    const [k, v] = part.split(':');
    if (k && v) map.set(k, v);
  }
  return map;
}

function roundUp(x: number): number {
  const i = Math.round(x * 100000);
  return i % 10000 === 0 ? i / 100000 : (Math.floor(i / 10000) + 1) / 10;
}

/** Base score of a CVSS v3.0/v3.1 vector ('CVSS:3.1/AV:N/...'); undefined when the vector is incomplete. */
export function cvss3BaseScore(vector: string): number | undefined {
  const m = metrics(vector);
  const scopeChanged = m.get('S') === 'C';
  const av = { N: 0.85, A: 0.62, L: 0.55, P: 0.2 }[m.get('AV') ?? ''];
  const ac = { L: 0.77, H: 0.44 }[m.get('AC') ?? ''];
  const pr = (scopeChanged ? { N: 0.85, L: 0.68, H: 0.5 } : { N: 0.85, L: 0.62, H: 0.27 })[m.get('PR') ?? ''];
  const ui = { N: 0.85, R: 0.62 }[m.get('UI') ?? ''];
  const cia = ['C', 'I', 'A'].map((k) => ({ H: 0.56, L: 0.22, N: 0 })[m.get(k) ?? '']);
  if (av === undefined || ac === undefined || pr === undefined || ui === undefined || !m.has('S')) return undefined;
  if (cia.some((v) => v === undefined)) return undefined;
  const [c, i, a] = cia as number[];
  const iss = 1 - (1 - c!) * (1 - i!) * (1 - a!);
  const impact = scopeChanged ? 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15 : 6.42 * iss;
  const exploitability = 8.22 * av * ac * pr * ui;
  if (impact <= 0) return 0;
  return roundUp(Math.min((scopeChanged ? 1.08 : 1) * (impact + exploitability), 10));
}

/** Base score of a CVSS v2 vector ('AV:N/AC:L/Au:N/C:P/I:P/A:P'). */
export function cvss2BaseScore(vector: string): number | undefined {
  const m = metrics(vector.replace(/^\(|\)$/g, ''));
  const av = { L: 0.395, A: 0.646, N: 1.0 }[m.get('AV') ?? ''];
  const ac = { H: 0.35, M: 0.61, L: 0.71 }[m.get('AC') ?? ''];
  const au = { M: 0.45, S: 0.56, N: 0.704 }[m.get('Au') ?? ''];
  const cia = ['C', 'I', 'A'].map((k) => ({ N: 0, P: 0.275, C: 0.66 })[m.get(k) ?? '']);
  if (av === undefined || ac === undefined || au === undefined || cia.some((v) => v === undefined)) return undefined;
  const [c, i, a] = cia as number[];
  const impact = 10.41 * (1 - (1 - c!) * (1 - i!) * (1 - a!));
  const exploitability = 20 * av * ac * au;
  const f = impact === 0 ? 0 : 1.176;
  return Math.round((0.6 * impact + 0.4 * exploitability - 1.5) * f * 10) / 10;
}

const CVSS4_BASE_METRICS = ['AV', 'AC', 'AT', 'PR', 'UI', 'VC', 'VI', 'VA', 'SC', 'SI', 'SA'];

/**
 * Score of a CVSS v4.0 vector ('CVSS:4.0/AV:N/...') as the FIRST calculator gives it for the vector as written
 * (CVSS-B for a base vector; threat or environmental metrics, when present, count as they do there and in NVD's
 * baseScore). Undefined when a base metric is missing or any metric or value is unknown.
 */
export function cvss4BaseScore(vector: string): number | undefined {
  if (!vector.startsWith('CVSS:4.0/')) return undefined;
  const m = metrics(vector);
  if (CVSS4_BASE_METRICS.some((k) => !m.has(k))) return undefined;
  try {
    return new cvssCalculator.Cvss4P0(vector).calculateScores().base;
  } catch {
    return undefined; // an unknown metric or value
  }
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

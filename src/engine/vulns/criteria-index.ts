// The CPE criteria of a record, one entry each, so a vulnerability database can index them by (vendor, product)
// and the matcher can select the records that apply to a component without loading every candidate record.
// Each entry also carries sortable keys of its versions (version-key.ts), with which a database discards the
// criteria whose range cannot hold a component's plain numeric version.
import { criterionView, type CriterionView } from './cpe-matcher.js';
import { unescapeCpe } from '../cpe.js';
import type { VulnerabilityRecord } from './source.js';
import { TOP_KEY, versionKey } from './version-key.js';

export interface IndexedCriterion extends CriterionView {
  /** The record it belongs to: its feed and its id there (the database's record key). */
  source: string;
  recordId: string;
  /** Where it sits in record.criteria (configuration, then position): the criterion's id within its record. */
  configIndex: number;
  criterionIndex: number;
  keys: CriterionKeys;
  /**
   * An opaque version of the record the criterion was read with (a store's import time), handed back in the
   * record key so that a store can serve a record it already parsed without looking it up again.
   */
  recordStamp?: string;
}

/**
 * The version keys of a criterion: it can hold a plain version whose key is k only if low <= k < high (string
 * order). Ranges and exact versions take the same form, so a database tests it with one index range. `keyed` is
 * false when a database must not judge the criterion by its keys (a bound or exact version without a key, a
 * specific update, wildcards, NA): such criteria always reach the matcher.
 */
export interface CriterionKeys {
  keyed: boolean;
  low: string;
  high: string;
}

/** The record key a VulnerabilityQuery selects (VulnerabilityCandidates.byKey): `${source}\0${recordId}`, then `\0${stamp}` when there is one. */
export function recordKey(source: string, recordId: string, stamp?: string): string {
  return stamp === undefined ? `${source}\0${recordId}` : `${source}\0${recordId}\0${stamp}`;
}

export function parseRecordKey(key: string): { source: string; recordId: string; stamp?: string } {
  const [source, recordId, stamp] = key.split('\0') as [string, string, string | undefined];
  return stamp === undefined ? { source, recordId } : { source, recordId, stamp };
}

/** A record's own key (the same one the stores file it under). */
export function keyOfRecord(record: VulnerabilityRecord): string {
  return recordKey(record.source ?? 'unknown', record.sourceId ?? record.id);
}

export function indexCriteria(record: VulnerabilityRecord): IndexedCriterion[] {
  const source = record.source ?? 'unknown';
  const recordId = record.sourceId ?? record.id;
  const out: IndexedCriterion[] = [];
  record.criteria.forEach((group, configIndex) => group.forEach((criterion, criterionIndex) => {
    const view = criterionView(criterion);
    if (!view) return;
    // one object shape for all (see criterionView)
    out.push({
      source, recordId, configIndex, criterionIndex, vulnerable: view.vulnerable, part: view.part, vendor: view.vendor, product: view.product,
      version: view.version, update: view.update, others: view.others, versionStartIncluding: view.versionStartIncluding,
      versionStartExcluding: view.versionStartExcluding, versionEndIncluding: view.versionEndIncluding, versionEndExcluding: view.versionEndExcluding,
      keys: criterionKeys(view),
    });
  }));
  return out;
}

const ANY = new Set(['*', '']);

/** The keys of a criterion that only the matcher can judge. */
export const UNKEYED: CriterionKeys = Object.freeze({ keyed: false, low: '', high: TOP_KEY });

// For keys, which hold only digits: k > s exactly when k >= s + '0', and k <= s exactly when k < s + '0'. So an
// excluded start and an included end become the half-open form [low, high), and an exact version e is [e, e + '0').
const after = (key: string) => `${key}0`;

export function criterionKeys(c: CriterionView): CriterionKeys {
  if (ANY.has(c.version)) {
    // '*' as a bound means no bound, as in inRange; null: a bound without a key
    const key = (bound: string | undefined): string | undefined | null => (!bound || bound === '*' ? undefined : versionKey(bound) ?? null);
    const si = key(c.versionStartIncluding);
    const se = key(c.versionStartExcluding);
    const ei = key(c.versionEndIncluding);
    const ee = key(c.versionEndExcluding);
    if (si === null || se === null || ei === null || ee === null) return UNKEYED;
    const lows = [si, se === undefined ? undefined : after(se)].filter((k): k is string => k !== undefined);
    const highs = [ei === undefined ? undefined : after(ei), ee].filter((k): k is string => k !== undefined);
    // both bounds of one side (not seen in NVD data) narrow the range
    return { keyed: true, low: lows.reduce((a, b) => (a > b ? a : b), ''), high: highs.reduce((a, b) => (a < b ? a : b), TOP_KEY) };
  }
  if (!ANY.has(c.update) && c.update !== '-') return UNKEYED;
  const exact = versionKey(unescapeCpe(c.version));
  return exact === undefined ? UNKEYED : { keyed: true, low: exact, high: after(exact) };
}

/**
 * Whether a criterion can hold a version whose key is `version`. A false answer is final (the generic comparison
 * would say the same); a true one still goes through the matcher's criterion test. The store's SQL filter
 * (vulns-criteria.ts) is this same test.
 */
export function keysAdmit(keys: CriterionKeys, version: string): boolean {
  return !keys.keyed || (keys.low <= version && version < keys.high);
}

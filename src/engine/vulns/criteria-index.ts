// The CPE criteria of a record, one entry each, so a vulnerability database can index them by (vendor, product)
// and the matcher can select the records that apply to a component without loading every candidate record.
// Each entry also carries sortable keys of its versions (version-key.ts), with which a database discards the
// criteria whose range cannot hold a component's plain numeric version.
import { criterionView, type CriterionView } from './cpe-matcher.js';
import { unescapeCpe } from './cpe.js';
import type { VulnerabilityRecord } from './source.js';
import { versionKey } from './version-key.js';

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
 * The version keys of a criterion. `keyed` is false when a database must not judge the criterion by its keys
 * (a bound or exact version without a key, a specific update, wildcards, NA): such criteria always reach the
 * matcher. When keyed, `exact` holds the key of an exact-version criterion and the bounds' keys hold the range
 * (absent bound: no limit).
 */
export interface CriterionKeys {
  keyed: boolean;
  exact?: string;
  startIncluding?: string;
  startExcluding?: string;
  endIncluding?: string;
  endExcluding?: string;
}

/** The record key VulnerabilitySource.recordsByKeys takes: `${source}\0${recordId}`, then `\0${stamp}` when there is one. */
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
export const UNKEYED: CriterionKeys = Object.freeze({ keyed: false, exact: undefined, startIncluding: undefined, startExcluding: undefined, endIncluding: undefined, endExcluding: undefined });

export function criterionKeys(c: CriterionView): CriterionKeys {
  if (ANY.has(c.version)) {
    const key = (bound: string | undefined): string | undefined | null => (!bound || bound === '*' ? undefined : versionKey(bound) ?? null);
    // '*' as a bound means no bound, as in inRange; null: a bound without a key
    const keys = { si: key(c.versionStartIncluding), se: key(c.versionStartExcluding), ei: key(c.versionEndIncluding), ee: key(c.versionEndExcluding) };
    if (keys.si === null || keys.se === null || keys.ei === null || keys.ee === null) return UNKEYED;
    return { keyed: true, exact: undefined, startIncluding: keys.si, startExcluding: keys.se, endIncluding: keys.ei, endExcluding: keys.ee };
  }
  if (!ANY.has(c.update) && c.update !== '-') return UNKEYED;
  const exact = versionKey(unescapeCpe(c.version));
  return exact === undefined ? UNKEYED : { ...UNKEYED, keyed: true, exact };
}

/**
 * Whether a keyed criterion can hold a version whose key is `version`: the exact key is equal, or the key lies
 * within the bounds. A false answer is final (the generic comparison would say the same); a true one still goes
 * through the matcher's criterion test. The store's SQL filter (vulns.repository.ts) is this same test.
 */
export function keysAdmit(keys: CriterionKeys, version: string): boolean {
  if (!keys.keyed) return true;
  if (keys.exact !== undefined) return keys.exact === version;
  const { startIncluding: si, startExcluding: se, endIncluding: ei, endExcluding: ee } = keys;
  return (si === undefined || si <= version) && (se === undefined || se < version)
    && (ei === undefined || ei >= version) && (ee === undefined || ee > version);
}

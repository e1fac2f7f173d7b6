// The one mapping of an engine finding to its row in `findings`, used by every writer of findings (storing a
// scan's result, re-matching its vulnerabilities), so that a column is computed the same way whoever writes it.
import type { EngineFinding } from '../engine/types.js';
import { newId } from '../ids.js';
import type { Database } from './schema.js';

export interface ScanRef {
  scanId: string;
  imageId: string;
  productId: string;
}

/** The columns that follow from the finding itself (what an update of a stored finding sets). */
export function findingColumns(f: EngineFinding): Omit<Database['findings'], 'id' | 'scan_id' | 'image_id' | 'product_id' | 'create_time'> {
  return {
    fingerprint: f.fingerprint, finding_type: f.findingType, pname: f.pname, name: f.name, severity: f.severity,
    cvss_score: f.cvssLatestBaseScore ?? f.cvss?.cvssV4?.baseScore ?? f.cvss?.cvssV3?.baseScore ?? f.cvss?.cvssV2?.baseScore ?? null,
    epss_probability: f.epss?.probability ?? null, is_kev: f.isKev ? 1 : 0, component_name: f.component?.name ?? null,
    component_version: f.component?.version ?? null, match_confidence: f.matchConfidence?.score ?? null,
    match_confidence_label: f.matchConfidence?.label ?? null, applicability: f.applicability?.verdict ?? null,
    applicability_rule: f.applicability?.rule ?? null, data: JSON.stringify(f),
  };
}

/** A new row for the finding in the scan. */
export function findingRow(ref: ScanRef, f: EngineFinding, now: string): Database['findings'] {
  return { id: newId(), scan_id: ref.scanId, image_id: ref.imageId, product_id: ref.productId, create_time: now, ...findingColumns(f) };
}

// The scan's last step: one finding per fingerprint. The fingerprint is the finding's identity (issue status
// lives on product + fingerprint), so two findings sharing one would give a report that disagrees with itself
// (the same issue twice, with two severities). Analyzers should not produce such pairs; this step guarantees
// the invariant whatever they do, keeping everything both findings knew.
import type { EngineFinding, FindingOccurrence } from './types.js';
import { severityRank } from './vulns/cvss.js';

const occurrenceKey = (o: FindingOccurrence): string => JSON.stringify([o.path, o.offset ?? null, o.evidence ?? null]);

function unionBy<T>(key: (item: T) => string, ...lists: Array<T[] | undefined>): T[] {
  const seen = new Map<string, T>();
  for (const list of lists) for (const item of list ?? []) if (!seen.has(key(item))) seen.set(key(item), item);
  return [...seen.values()];
}

/** True when `a` should speak for the pair: higher severity, then the higher CVSS score. */
function outranks(a: EngineFinding, b: EngineFinding): boolean {
  return severityRank(a.severity) - severityRank(b.severity) > 0 || (a.severity === b.severity && (a.cvssLatestBaseScore ?? -1) > (b.cvssLatestBaseScore ?? -1));
}

/** Merges two findings with one fingerprint: the stronger one's severity, score and text; everything else unioned. */
export function mergeFinding(a: EngineFinding, b: EngineFinding): EngineFinding {
  const [lead, other] = outranks(b, a) ? [b, a] : [a, b];
  const merged: EngineFinding = {
    ...lead,
    identifiers: unionBy((i) => JSON.stringify(Object.entries(i).sort()), lead.identifiers, other.identifiers),
    occurrences: unionBy(occurrenceKey, lead.occurrences, other.occurrences),
  };
  const references = unionBy((r) => r.url, lead.references, other.references);
  if (references.length) merged.references = references;
  if (lead.isKev || other.isKev) merged.isKev = true;
  // cvss and cvssLatestBaseScore stay the lead's: a score always travels with the severity it justifies.
  if (!merged.epss && other.epss) merged.epss = other.epss;
  return merged;
}

/** One finding per fingerprint, in the order each fingerprint first appeared. */
export function mergeFindingsByFingerprint(findings: readonly EngineFinding[]): EngineFinding[] {
  const byFingerprint = new Map<string, EngineFinding>();
  for (const finding of findings) {
    const seen = byFingerprint.get(finding.fingerprint);
    byFingerprint.set(finding.fingerprint, seen ? mergeFinding(seen, finding) : finding);
  }
  return [...byFingerprint.values()];
}

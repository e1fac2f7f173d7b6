// Human labels for the interface's identifiers (finding types, issue statuses). They are the words of the findings
// reports (src/reports/report-labels.ts), so the UI and the PDF name each thing the same way; that module cannot be
// imported here, as its types pull in the engine's Node-only types. The API keeps its identifiers.
const WORDS: Record<string, string> = {
  dependencyVulnerability: 'Dependency vulnerability',
  knownVulnerability: 'Security weakness',
  maliciousCode: 'Malicious code',
  new: 'New',
  inProgress: 'In progress',
  remediated: 'Remediated',
  rejected: 'Rejected (not affected)',
};

/** The label of an identifier, or the identifier itself when it has none (scan states, say). */
export function labelOf(id: string): string {
  return WORDS[id] ?? id;
}

/**
 * How sure a dependency vulnerability's match is: the labels of the API's matchConfidence, surest first (the
 * engine's CONFIDENCE_SCORES, src/engine/vulns/confidence.ts; a test keeps the two lists the same).
 */
export const CONFIDENCE_LABELS: Record<string, string> = {
  'package-advisory': 'Distribution advisory',
  'kernel-code-built': 'Kernel code built',
  'exact-cpe': 'Exact CPE and version range',
  'product-alias': 'Product alias',
  'cpe-all-versions': 'CPE, all versions',
  'kernel-code-unknown': 'Kernel code: unknown if built',
  'name-only': 'Name only (record without CPE)',
  'platform-unknown': 'Platform unknown',
  'kernel-code-not-built': 'Kernel code not built',
};

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

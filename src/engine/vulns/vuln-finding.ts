// One `dependencyVulnerability` finding from the records that matched one component and name the same
// vulnerability (a CVE and its GHSA/OSV aliases): scores, KEV, EPSS, references and how each match was made.
import { findingFingerprint } from '../fingerprint.js';
import type { Component, EngineFinding } from '../types.js';
import type { CpeMatchDetails } from './cpe-matcher.js';
import { matchConfidence } from './confidence.js';
import { latestBaseScore, severityOf } from './cvss.js';
import type { OsvMatchDetails } from './osv-matcher.js';
import type { VulnerabilityRecord } from './source.js';
import { genericScheme } from './version.js';

export type MatchDetails = CpeMatchDetails | OsvMatchDetails;

export interface RecordMatch {
  record: VulnerabilityRecord;
  details: MatchDetails[];
}

const SOURCE_RANK: Record<string, number> = { nvd: 0, cve5: 1, osv: 2 };

/** The id a group of aliased records is known by: the CVE id when there is one, then the smallest id. */
export function canonicalId(records: VulnerabilityRecord[]): string {
  const ids = [...new Set(records.flatMap((r) => [r.id, ...r.aliases]))].sort();
  return ids.find((id) => id.startsWith('CVE-')) ?? ids[0]!;
}

function identifiersOf(ids: string[], cwes: string[]): EngineFinding['identifiers'] {
  const out: EngineFinding['identifiers'] = [];
  for (const id of ids) {
    if (id.startsWith('CVE-')) out.push({ cve: id });
    else if (id.startsWith('GHSA-')) out.push({ ghsa: id });
    else out.push({ osv: id });
  }
  for (const cwe of cwes) out.push({ cwe });
  return out;
}

/** The lowest fix version any match reports, which is the one that resolves this component's version. */
function fixedVersionOf(matches: RecordMatch[]): string | undefined {
  if (matches.length === 1 && matches[0]!.details.length === 1) return matches[0]!.details[0]!.fixedIn ?? matches[0]!.record.knownFixedVersion;
  const fixes = matches.flatMap((m) => m.details.map((d) => d.fixedIn)).filter((v): v is string => !!v);
  const sorted = [...new Set(fixes)].sort((a, b) => genericScheme.compare(a, b) ?? a.localeCompare(b));
  return sorted[0] ?? matches.map((m) => m.record.knownFixedVersion).find((v) => v !== undefined);
}

/**
 * The distinct entries of a list, in first-seen order: the list itself when it has no repeats (shared with the
 * record, so never modified), a new array otherwise; empty for none.
 */
function unique(list: string[] | undefined): string[] {
  if (!list || list.length === 0) return [];
  if (list.length === 1) return list;
  const distinct = new Set(list);
  return distinct.size === list.length ? list : [...distinct];
}

/**
 * What every finding of one component shows of it, built once per component and shared by its findings (a kernel
 * has thousands): the summary, the occurrences and the label. Shared, so never modified in place: a merge of
 * findings makes new lists (matcher.ts matchAll).
 */
export interface ComponentFacts {
  summary: NonNullable<EngineFinding['component']>;
  occurrences: EngineFinding['occurrences'];
  label: string;
}

export function componentFacts(component: Component): ComponentFacts {
  // built by assignment in a fixed order (see buildFinding): the order of the properties is the JSON's
  const summary: ComponentFacts['summary'] = { ref: component.ref, name: component.name };
  if (component.version) summary.version = component.version;
  if (component.cpe) summary.cpe = component.cpe;
  if (component.purl) summary.purl = component.purl;
  const occurrences = component.paths.map((path) => {
    const evidence = component.evidence.find((e) => e.path === path)?.match;
    return evidence ? { path, evidence } : { path };
  });
  return { summary, occurrences, label: `${component.name}${component.version ? ` ${component.version}` : ''}` };
}

export function buildFinding(component: Component, matches: RecordMatch[], facts = componentFacts(component)): EngineFinding {
  const records = matches.length === 1 ? [matches[0]!.record] : matches.map((m) => m.record).sort((a, b) => (SOURCE_RANK[a.source ?? ''] ?? 9) - (SOURCE_RANK[b.source ?? ''] ?? 9));
  // the common case, one record without aliases, skips the merging work
  const single = records.length === 1 && records[0]!.aliases.length === 0 ? records[0] : undefined;
  const id = single ? single.id : canonicalId(records);
  const primary = records.find((r) => r.id === id) ?? records[0]!;
  const ids = single
    ? [id, ...(single.sourceId && single.sourceId !== id ? [single.sourceId] : [])]
    : [id, ...[...new Set(records.flatMap((r) => [r.id, ...r.aliases, ...(r.sourceId ? [r.sourceId] : [])]))].filter((x) => x !== id).sort()];
  const cwes = single ? single.cwes : [...new Set(records.flatMap((r) => r.cwes))];
  const cvssSource = records.find((r) => latestBaseScore(r.cvss) !== undefined) ?? primary;
  const kev = records.find((r) => r.kev)?.kev;
  const epss = records.find((r) => r.epss)?.epss;
  const fixed = fixedVersionOf(matches);
  const references = single ? single.references : [...new Map(records.flatMap((r) => r.references).map((r) => [r.url, r])).values()];
  // Built by assignment in a fixed order, not with conditional spreads: a scan builds thousands of findings (a
  // kernel's alone), and objects grown one property at a time in one order share V8's hidden classes, where
  // `...(x ? { x } : {})` makes temporary objects and slower, larger ones. The order of the properties is the order
  // of the finding's JSON and must not change.
  const finding: EngineFinding = {
    fingerprint: findingFingerprint('dependencyVulnerability', id, component.name),
    findingType: 'dependencyVulnerability',
    pname: id,
    name: `${id} in ${facts.label}`,
    severity: severityOf(cvssSource.cvss),
    identifiers: identifiersOf(ids, cwes),
    references,
    component: facts.summary,
    occurrences: facts.occurrences,
    isKev: kev !== undefined,
  };
  if (kev) finding.kev = kev.dueDate ? { dateAdded: kev.dateAdded, dueDate: kev.dueDate } : { dateAdded: kev.dateAdded };
  const matched: Array<Record<string, unknown>> = [];
  for (const m of matches) {
    for (const d of m.details) {
      const entry: Record<string, unknown> = { record: m.record.sourceId ?? m.record.id, source: m.record.source };
      for (const key in d) entry[key] = d[key as keyof MatchDetails];
      matched.push(entry);
    }
  }
  const match: Record<string, unknown> = { matches: matched };
  finding.match = match;
  // the affected source files, for the kernel triage
  const programFiles = single ? unique(single.programFiles) : unique(records.flatMap((r) => r.programFiles ?? []));
  if (programFiles.length > 0) match.programFiles = programFiles;
  const programRoutines = single ? unique(single.programRoutines) : unique(records.flatMap((r) => r.programRoutines ?? []));
  if (programRoutines.length > 0) match.programRoutines = programRoutines;
  const confidence = matchConfidence(matches.length === 1 ? matches[0]!.details : matches.flatMap((m) => m.details));
  if (confidence) finding.matchConfidence = confidence;
  const description = primary.description ?? records.find((r) => r.description)?.description;
  if (description) {
    finding.description = description;
    finding.title = description.length > 160 ? `${description.slice(0, 157)}...` : description;
  }
  const { v2, v3, v4 } = cvssSource.cvss;
  const cvss: NonNullable<EngineFinding['cvss']> = {};
  if (v2) cvss.cvssV2 = { baseScore: v2.baseScore, vector: v2.vector };
  if (v3) cvss.cvssV3 = { baseScore: v3.baseScore, vector: v3.vector, version: v3.version };
  if (v4) cvss.cvssV4 = { baseScore: v4.baseScore, vector: v4.vector };
  finding.cvss = cvss;
  const latest = latestBaseScore(cvssSource.cvss);
  if (latest) finding.cvssLatestBaseScore = latest.score;
  if (epss) finding.epss = { probability: epss.probability, percentile: epss.percentile };
  if (fixed) {
    finding.knownFixedVersion = fixed;
    finding.recommendedAction = `Upgrade ${component.name} to ${fixed} or later.`;
  } else if (kev?.requiredAction) finding.recommendedAction = kev.requiredAction;
  return finding;
}

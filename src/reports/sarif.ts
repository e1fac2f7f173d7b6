// SARIF 2.1.0 (OASIS): one rule per vulnerability or detection rule, one result per occurrence of a finding,
// its level from the finding's severity and its location the path in the unpacked image (relative to the
// EXTRACTED base, which starts with the image's file name). Rejected findings carry an external suppression;
// every result carries the finding's fingerprint, so code-scanning tools follow it across images.
import type { Invocation, Location, Log, ReportingDescriptor, Result } from 'sarif';
import { SEVERITIES, type FindingOccurrence, type Severity } from '../engine/types.js';
import { ENGINE_VERSION } from '../engine/version.js';
import { analysisStatus, type AnalysisStatus } from './analysis-status.js';
import type { ReportFinding, ReportGenerator, ReportInput } from './report.js';
import { imageName, imageVersion } from './sbom-common.js';
import { advisoryUrl, cwesOf, fixAdvice, REJECTED_STATEMENT, reportFindings } from './vex-common.js';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
const BASE = 'EXTRACTED';
const LEVEL: Record<Severity, Result.level> = { critical: 'error', high: 'error', medium: 'warning', low: 'note', informational: 'note' };
/** GitHub's `security-severity` when a finding has no CVSS score: the middle of its severity band. */
const SEVERITY_SCORE: Record<Severity, number> = { critical: 9.5, high: 8, medium: 5.5, low: 2, informational: 0 };

/** A relative URI for a '/'-separated path in the image: each segment percent-encoded. */
export function pathUri(path: string): string {
  return path.split('/').filter((s) => s !== '').map(encodeURIComponent).join('/');
}

function ruleOf(id: string, findings: ReportFinding[]): ReportingDescriptor {
  const worst = findings.reduce((a, b) => (SEVERITIES.indexOf(b.severity) < SEVERITIES.indexOf(a.severity) ? b : a));
  const withText = findings.find((f) => f.description) ?? worst;
  const score = Math.max(...findings.map((f) => f.cvssLatestBaseScore ?? SEVERITY_SCORE[f.severity]));
  const cwes = [...new Set(findings.flatMap(cwesOf))];
  const vulnerabilityId = findings.some((f) => f.findingType === 'dependencyVulnerability');
  const reference = vulnerabilityId ? advisoryUrl(id).url : worst.references?.[0]?.url;
  const short = withText.title ?? withText.description ?? worst.name;
  return {
    id,
    shortDescription: { text: short.length > 200 ? `${short.slice(0, 197)}...` : short },
    ...(withText.description ? { fullDescription: { text: withText.description } } : {}),
    ...(reference ? { helpUri: reference } : {}),
    defaultConfiguration: { level: LEVEL[worst.severity] },
    properties: {
      tags: ['security', worst.findingType, ...cwes.map((c) => `external/cwe/cwe-${c}`)],
      'security-severity': score.toFixed(1),
      ...(worst.cvss?.cvssV3 ? { cvssV3: worst.cvss.cvssV3.vector } : {}),
    },
  };
}

function locationOf(o: FindingOccurrence): Location {
  return {
    physicalLocation: {
      artifactLocation: { uri: pathUri(o.path), uriBaseId: BASE },
      ...(o.offset !== undefined && o.offset >= 0 ? { region: { byteOffset: o.offset } } : {}),
    },
    ...(o.evidence ? { message: { text: o.evidence } } : {}),
  };
}

function messageOf(f: ReportFinding): string {
  const what = f.findingType === 'dependencyVulnerability' && f.component
    ? `${f.pname} affects ${f.component.name}${f.component.version ? ` ${f.component.version}` : ''}`
    : f.name;
  const title = f.title && f.title !== f.name ? `: ${f.title}` : '';
  const advice = fixAdvice(f);
  const action = advice ? ` ${advice}` : '';
  const head = `${what}${title}`;
  return `${/[.!?]$/.test(head) ? head : `${head}.`}${action}`;
}

function resultsOf(f: ReportFinding, ruleIndex: number): Result[] {
  const occurrences: Array<FindingOccurrence | undefined> = f.occurrences.length ? f.occurrences : [undefined];
  return occurrences.map((o) => ({
    ruleId: f.pname,
    ruleIndex,
    level: LEVEL[f.severity],
    message: { text: messageOf(f) },
    ...(o ? { locations: [locationOf(o)] } : {}),
    partialFingerprints: { 'firmscopeFinding/v1': f.fingerprint, ...(o ? { 'firmscopeLocation/v1': o.path } : {}) },
    ...(f.issueStatus === 'rejected' ? { suppressions: [{ kind: 'external' as const, status: 'accepted' as const, justification: suppressionText(f) }] } : {}),
    properties: {
      findingId: f.id,
      findingType: f.findingType,
      severity: f.severity,
      issueStatus: f.issueStatus,
      ...(f.component ? { component: { name: f.component.name, ...(f.component.version ? { version: f.component.version } : {}), ...(f.component.purl ? { purl: f.component.purl } : {}), ...(f.component.cpe ? { cpe: f.component.cpe } : {}) } } : {}),
      ...(f.cvssLatestBaseScore !== undefined ? { cvssLatestBaseScore: f.cvssLatestBaseScore } : {}),
      ...(f.epss ? { epss: f.epss } : {}),
      ...(f.isKev !== undefined ? { isKev: f.isKev } : {}),
      ...(f.knownFixedVersion ? { knownFixedVersion: f.knownFixedVersion } : {}),
    },
  }));
}

/** A rejection's reason as the team recorded it (OpenVEX label and comment), or the generic statement. */
function suppressionText(f: ReportFinding): string {
  const parts = [f.justification ? `Not affected: ${f.justification.replaceAll('_', ' ')}.` : undefined, f.statusComment].filter(Boolean);
  return parts.length ? parts.join(' ') : REJECTED_STATEMENT;
}

/**
 * The run's invocation: the analysis ran, and when it did not cover the whole image each reason is an error-level
 * notification, so a code-scanning service shows that the results are partial instead of a clean run.
 */
function invocationOf(analysis: AnalysisStatus): Invocation {
  return {
    executionSuccessful: true,
    ...(analysis.complete ? {} : {
      toolExecutionNotifications: analysis.incompleteReasons.map((reason) => ({ level: 'error' as const, message: { text: `analysis incomplete: ${reason}` } })),
    }),
  };
}

export function sarifLog(input: ReportInput): Log {
  const findings = reportFindings(input)
    .slice()
    .sort((a, b) => a.pname.localeCompare(b.pname) || (a.component?.ref ?? '').localeCompare(b.component?.ref ?? '') || a.id.localeCompare(b.id));
  const byRule = new Map<string, ReportFinding[]>();
  for (const f of findings) (byRule.get(f.pname) ?? byRule.set(f.pname, []).get(f.pname)!).push(f);
  const ruleIds = [...byRule.keys()];
  const rules = ruleIds.map((id) => ruleOf(id, byRule.get(id)!));
  const results = findings.flatMap((f) => resultsOf(f, ruleIds.indexOf(f.pname)));
  const { image } = input.result;
  const analysis = analysisStatus(input.result);
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: 'Firmscope', version: ENGINE_VERSION, semanticVersion: ENGINE_VERSION, rules } },
      originalUriBaseIds: { [BASE]: { description: { text: `The folder ${image.fileName} was unpacked into; paths start with the image's file name.` } } },
      results,
      ...(analysis ? { invocations: [invocationOf(analysis)] } : {}),
      properties: {
        ...(analysis ? { analysis } : {}),
        image: {
          name: imageName(input), ...(imageVersion(input) ? { version: imageVersion(input) } : {}),
          fileName: image.fileName, size: image.size, sha256: image.hashes.sha256, type: image.type,
        },
        ...(input.subject ? { product: input.subject.product, scan: input.subject.scan } : {}),
        generatedAt: (input.now ?? new Date()).toISOString(),
      },
    }],
  };
}

export const sarifReport: ReportGenerator = {
  id: 'sarif',
  aliases: ['sarif'],
  mediaType: 'application/sarif+json',
  specVersion: '2.1.0',
  async generate(input: ReportInput): Promise<string> {
    return JSON.stringify(sarifLog(input), null, 2) + '\n';
  },
};

// The findings report's content, shared by its JSON, CSV and PDF forms: the subject, a summary and every
// finding with its issue status, most severe first.
import { SEVERITIES } from '../engine/types.js';
import { FINDING_TYPES, ISSUE_STATUSES } from './report-labels.js';
import { analysisStatus, type AnalysisStatus } from './analysis-status.js';
import { imageName, imageVersion } from './sbom-common.js';
import type { ReportFinding, ReportInput } from './report.js';


export interface FindingsModel {
  reportType: 'findings';
  generatedAt: string;
  product?: { id: string; name: string };
  image: { id?: string; name: string; version?: string; fileName: string; sha256: string; type: string; size: number; uploadTime?: string };
  engineVersion: string;
  scan?: { id: string; createTime: string; engineVersion: string };
  /** Whether the whole image was analysed, and why not (absent for results stored before it was known). */
  analysis?: AnalysisStatus;
  summary: {
    total: number;
    bySeverity: Record<string, number>;
    byType: Record<string, number>;
    byIssueStatus: Record<string, number>;
    kev: number;
  };
  findings: ReportFinding[];
}

export function findingsModel(input: ReportInput): FindingsModel {
  const findings: ReportFinding[] = (input.findings ?? input.result.findings.map((f, i) => ({ ...f, id: String(i + 1), issueStatus: 'new' as const })))
    .slice()
    .sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) || (b.cvssLatestBaseScore ?? 0) - (a.cvssLatestBaseScore ?? 0) || a.pname.localeCompare(b.pname));
  const count = <K extends string>(keys: readonly K[], pick: (f: ReportFinding) => string) =>
    Object.fromEntries(keys.map((k) => [k, findings.filter((f) => pick(f) === k).length])) as Record<K, number>;
  const { result, subject } = input;
  const analysis = analysisStatus(result);
  return {
    reportType: 'findings',
    generatedAt: (input.now ?? new Date()).toISOString(),
    ...(subject ? { product: subject.product } : {}),
    image: {
      ...(subject ? { id: subject.image.id } : {}), name: imageName(input), ...(imageVersion(input) ? { version: imageVersion(input) } : {}),
      fileName: result.image.fileName, sha256: result.image.hashes.sha256, type: result.image.type, size: result.image.size,
      ...(subject ? { uploadTime: subject.image.createTime } : {}),
    },
    engineVersion: result.engineVersion,
    ...(subject ? { scan: { id: subject.scan.id, createTime: subject.scan.createTime, engineVersion: result.engineVersion } } : {}),
    ...(analysis ? { analysis } : {}),
    summary: {
      total: findings.length,
      bySeverity: count(SEVERITIES, (f) => f.severity),
      byType: count(FINDING_TYPES, (f) => f.findingType),
      byIssueStatus: count(ISSUE_STATUSES, (f) => f.issueStatus),
      kev: findings.filter((f) => f.isKev).length,
    },
    findings,
  };
}

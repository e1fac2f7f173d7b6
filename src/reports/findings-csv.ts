// Findings report, CSV: one row per finding (API: findingsReport:download?contentType=csv).
import { reportCsv } from './csv.js';
import { findingsModel } from './findings-model.js';
import type { ReportFinding, ReportGenerator } from './report.js';

const COLUMNS: Array<[string, (f: ReportFinding) => unknown]> = [
  ['id', (f) => f.id],
  ['pname', (f) => f.pname],
  ['name', (f) => f.name],
  ['findingType', (f) => f.findingType],
  ['severity', (f) => f.severity],
  ['issueStatus', (f) => f.issueStatus],
  ['identifiers', (f) => f.identifiers.flatMap((i) => Object.values(i)).join(' ')],
  ['cvssLatestBaseScore', (f) => f.cvssLatestBaseScore],
  ['epssProbability', (f) => f.epss?.probability],
  ['isKev', (f) => Boolean(f.isKev)],
  ['componentName', (f) => f.component?.name],
  ['componentVersion', (f) => f.component?.version],
  ['knownFixedVersion', (f) => f.knownFixedVersion],
  ['paths', (f) => f.occurrences.map((o) => o.path).join(' ')],
  ['fingerprint', (f) => f.fingerprint],
];

export const findingsCsvReport: ReportGenerator = {
  id: 'findings-csv',
  aliases: ['findings-csv'],
  mediaType: 'text/csv; charset=utf-8',
  async generate(input) {
    const { findings } = findingsModel(input);
    return reportCsv(COLUMNS.map(([name]) => name), findings.map((f) => COLUMNS.map(([, pick]) => pick(f))));
  },
};

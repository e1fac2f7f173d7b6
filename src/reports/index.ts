// Every report generator, as one list; `findReport` resolves an id or alias.
import { cbomCycloneDxReport } from './cbom-cyclonedx.js';
import { findingsCsvReport } from './findings-csv.js';
import { findingsHtmlReport } from './findings-html.js';
import { findingsJsonReport } from './findings-json.js';
import { findingsPdfReport } from './findings-pdf.js';
import { pqcJsonReport } from './pqc-json.js';
import { pqcPdfReport } from './pqc-pdf.js';
import type { ReportGenerator } from './report.js';
import { cycloneDxReport } from './sbom-cyclonedx.js';
import { cycloneDxXmlReport } from './sbom-cyclonedx-xml.js';
import { spdxReport } from './sbom-spdx.js';
import { sarifReport } from './sarif.js';
import { cycloneDxVexReport } from './vex-cyclonedx.js';
import { openVexReport } from './vex-openvex.js';

export const reports: ReportGenerator[] = [
  pqcJsonReport,
  pqcPdfReport,
  cbomCycloneDxReport,
  cycloneDxReport,
  cycloneDxXmlReport,
  spdxReport,
  findingsJsonReport,
  findingsCsvReport,
  findingsPdfReport,
  findingsHtmlReport,
  openVexReport,
  cycloneDxVexReport,
  sarifReport,
];

export function findReport(name: string): ReportGenerator | undefined {
  const key = name.toLowerCase();
  return reports.find((r) => r.id === key || r.aliases.some((a) => a.toLowerCase() === key));
}

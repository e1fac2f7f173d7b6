// Findings from real engine output for the VEX and SARIF tests: the SBOM fixture's components matched by the
// engine's VulnerabilityMatcher against the real NVD records in shared/vulndata/nvd-corpus, then given issue
// statuses the way the service stores them (one of each status, in a fixed order).
import type { ScanResult } from '../../src/engine/types.js';
import { readFeeds } from '../../src/engine/vulns/feed-reader.js';
import { VulnerabilityMatcher } from '../../src/engine/vulns/matcher.js';
import { MemoryVulnerabilitySource } from '../../src/engine/vulns/memory-source.js';
import type { ReportFinding, ReportInput } from '../../src/reports/report.js';
import { haveShared, sharedPath } from '../support/shared.js';
import { fixedNow, sbomFixture } from './sbom-fixture.js';

export const haveVulnData = haveShared('vulndata', 'nvd-corpus');

export const subject = {
  product: { id: 'p1', name: 'Router X' },
  image: { id: 'i1', name: 'router-x-1.2.bin', version: '1.2', createTime: '2026-01-01T00:00:00Z' },
  scan: { id: 's1', createTime: '2026-01-01T00:00:00Z' },
};

export async function nvdSource(dir = 'nvd-corpus'): Promise<MemoryVulnerabilitySource> {
  const source = new MemoryVulnerabilitySource();
  for await (const item of readFeeds([sharedPath('vulndata', dir)])) {
    if (item.kind === 'error') throw new Error(`${item.file}: ${item.message}`);
    source.apply(item);
  }
  return source;
}

const STATUSES: ReportFinding['issueStatus'][] = ['new', 'inProgress', 'remediated', 'rejected'];

/** The SBOM fixture with its engine findings, and the service's view of them with statuses. */
export async function vexInput(): Promise<{ result: ScanResult; input: ReportInput }> {
  const matcher = new VulnerabilityMatcher(await nvdSource());
  const findings = [];
  for (const c of sbomFixture.components) findings.push(...(await matcher.matchComponent(c)));
  findings.sort((a, b) => a.pname.localeCompare(b.pname));
  const result: ScanResult = { ...sbomFixture, findings };
  const stored: ReportFinding[] = findings.map((f, i) => ({ ...f, id: `f${String(i + 1).padStart(2, '0')}`, issueStatus: STATUSES[i % STATUSES.length]! }));
  return { result, input: { result, subject, findings: stored, now: fixedNow } };
}

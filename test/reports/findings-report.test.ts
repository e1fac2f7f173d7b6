import { describe, expect, it } from 'vitest';
import type { ScanResult } from '../../src/engine/types.js';
import { findReport } from '../../src/reports/index.js';
import type { ReportFinding, ReportInput } from '../../src/reports/report.js';

const result: ScanResult = {
  engineVersion: '0.1.0',
  image: { fileName: 'fw.bin', size: 10, hashes: { sha256: 'a'.repeat(64), sha1: 'b'.repeat(40), md5: 'c'.repeat(32) }, type: 'squashfs' },
  files: [], unknownChunks: [], components: [], cryptoAssets: [], problems: [], findings: [],
  stats: { durationMs: 1, filesExtracted: 0, bytesExtracted: 0, formats: {} },
};
const findings: ReportFinding[] = [
  { id: 'F1', issueStatus: 'new', fingerprint: 'fp1', findingType: 'dependencyVulnerability', pname: 'CVE-2021-1', name: 'low one', severity: 'low', identifiers: [{ cve: 'CVE-2021-1' }], occurrences: [{ path: 'bin/a' }] },
  { id: 'F2', issueStatus: 'inProgress', fingerprint: 'fp2', findingType: 'knownVulnerability', pname: '=cmd|calc', name: 'critical "quoted", one', severity: 'critical', identifiers: [{ cwe: 'CWE-798' }], occurrences: [{ path: 'etc/shadow', offset: 3 }], isKev: true, cvssLatestBaseScore: 9.8, description: 'Hard-coded password', recommendedAction: 'Remove it' },
];
const input: ReportInput = {
  result, findings, now: new Date('2026-01-01T00:00:00Z'),
  subject: { product: { id: 'P', name: 'Router' }, image: { id: 'I', name: 'fw', version: '1.0', createTime: '2026-01-01T00:00:00.000Z' }, scan: { id: 'S', createTime: '2026-01-01T00:00:00.000Z' } },
};

describe('findings reports', () => {
  it('JSON: summary counts and findings most severe first', async () => {
    const doc = JSON.parse(String(await findReport('findings-json')!.generate(input)));
    expect(doc.summary).toMatchObject({ total: 2, kev: 1, bySeverity: { critical: 1, low: 1, high: 0 }, byIssueStatus: { new: 1, inProgress: 1 } });
    expect(doc.findings.map((f: ReportFinding) => f.id)).toEqual(['F2', 'F1']);
    expect(doc.product).toEqual({ id: 'P', name: 'Router' });
    expect(doc.generatedAt).toBe('2026-01-01T00:00:00.000Z');
  });

  it('CSV: one row per finding, quoted cells, formulas neutralised', async () => {
    const csv = String(await findReport('findings-csv')!.generate(input));
    const lines = csv.trimEnd().split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`'=cmd|calc`);
    expect(lines[1]).toContain('"critical ""quoted"", one"');
  });

  it('PDF: a complete document, also with no findings', async () => {
    for (const f of [findings, []]) {
      const pdf = (await findReport('findings-pdf')!.generate({ ...input, findings: f })) as Buffer;
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      expect(pdf.subarray(-6).toString()).toContain('%%EOF');
    }
  });
});

// The findings report as JSON, CSV and PDF; the PDF's text is read back with pdftotext (poppler-utils).
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanResult } from '../../src/engine/types.js';
import { findReport } from '../../src/reports/index.js';
import type { ReportFinding, ReportInput } from '../../src/reports/report.js';
import { needCommands } from '../support/requirements.js';

const havePoppler = needCommands(['pdftotext', 'pdfinfo'], 'the findings PDF text tests');

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

  describe.runIf(havePoppler)('PDF text, read back with pdftotext', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'fs-findings-pdf-'));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    /** The report's text laid out as printed (`pdftotext -layout`), and its page count (`pdfinfo`). */
    async function pdfText(reportInput: ReportInput, name: string): Promise<{ text: string; pages: number }> {
      const path = join(dir, `${name}.pdf`);
      await writeFile(path, (await findReport('findings-pdf')!.generate(reportInput)) as Buffer);
      const text = execFileSync('pdftotext', ['-layout', path, '-']).toString();
      return { text, pages: Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [path]).toString())![1]) };
    }

    it('prints the subject, the summary counts, the overview most severe first, then every finding in detail', async () => {
      const { text, pages } = await pdfText(input, 'two');
      expect(pages).toBe(2);
      for (const line of ['Firmware Findings Report', 'Product: Router', 'Image: fw 1.0 (fw.bin, squashfs)', `SHA-256: ${'a'.repeat(64)}`,
        'Scan: S of 2026-01-01T00:00:00.000Z, engine 0.1.0', 'Generated: 2026-01-01T00:00:00.000Z']) expect(text).toContain(line);
      // The details start a new page (pdftotext separates pages with a form feed).
      expect(text.split('\f')[1]).toMatch(/^Findings in detail\n/);
      const order = ['Summary', 'Findings overview', 'Findings in detail'].map((heading) => text.search(new RegExp(`^\\f?${heading}$`, 'm')));
      expect(order.every((at) => at >= 0), `sections at ${order}`).toBe(true);
      expect(order).toEqual([...order].sort((a, b) => a - b));
      // The summary table: every severity, type and status with its count, and the KEV count.
      for (const [measure, count] of [['Findings', 2], ['Severity critical', 1], ['Severity high', 0], ['Severity medium', 0], ['Severity low', 1],
        ['Severity informational', 0], ['Type dependencyVulnerability', 1], ['Type knownVulnerability', 1], ['Type maliciousCode', 0],
        ['Status new', 1], ['Status inProgress', 1], ['Status remediated', 0], ['Status rejected', 0], ['Known exploited (CISA KEV)', 1]] as const) {
        expect(text, measure).toMatch(new RegExp(`^${measure.replace(/[()]/g, '\\$&')}\\s+${count}$`, 'm'));
      }
      // The overview: severity, finding, type, CVSS, KEV, component, status, fixed version; critical before low.
      const overview = text.slice(order[1], order[2]);
      expect(overview).toMatch(/^critical\s+=cmd\|calc\s+knownVulnerability\s+9\.8\s+yes\s+-\s+inProgress\s+-$/m);
      expect(overview).toMatch(/^low\s+CVE-2021-1\s+dependencyVulnerability\s+-\s+-\s+new\s+-$/m);
      expect(overview.indexOf('=cmd|calc')).toBeLessThan(overview.indexOf('CVE-2021-1'));
      // Each finding in detail: its title, facts, identifiers, locations, description and recommended action.
      const details = text.slice(order[2]);
      expect(details).toContain(['CRITICAL =cmd|calc', 'critical "quoted", one', 'Type: knownVulnerability Status: inProgress CVSS: 9.8 CISA KEV',
        'Identifiers: CWE-798', 'Found at: etc/shadow@3', 'Hard-coded password', 'Recommended action: Remove it'].join('\n'));
      expect(details).toContain(['LOW CVE-2021-1', 'low one', 'Type: dependencyVulnerability Status: new', 'Identifiers: CVE-2021-1', 'Found at: bin/a'].join('\n'));
      expect(details.indexOf('CRITICAL =cmd|calc')).toBeLessThan(details.indexOf('LOW CVE-2021-1'));
    });

    it('says so in a sentence when there is no finding, with zero counts and no overview or details', async () => {
      const { text, pages } = await pdfText({ ...input, findings: [] }, 'none');
      expect(pages).toBe(1);
      expect(text).toMatch(/^Findings\s+0$/m);
      expect(text).toMatch(/^Known exploited \(CISA KEV\)\s+0$/m);
      expect(text).toContain('The scan reported no findings.');
      expect(text).not.toContain('Findings overview');
      expect(text).not.toContain('Findings in detail');
    });
  });
});

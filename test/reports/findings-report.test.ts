// The findings report as JSON, CSV and PDF; the PDF's text is read back with pdftotext (poppler-utils).
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanResult } from '../../src/engine/types.js';
import { findReport } from '../../src/reports/index.js';
import { SECTION_TITLES } from '../../src/reports/findings-pdf.js';
import type { ReportFinding, ReportInput } from '../../src/reports/report.js';
import { needCommands } from '../support/requirements.js';
import { readWithPdfjs } from './pdfjs-check.js';

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

    it('prints the cover, the executive summary and the sections in order, with human labels only', async () => {
      const { text, pages } = await pdfText(input, 'two');
      expect(pages).toBeGreaterThanOrEqual(4);
      const cover = text.split('\f')[0]!;
      for (const line of ['Firmware Security Assessment', 'Router — fw 1.0', `SHA-256 ${'a'.repeat(64)}`, 'Engine Firmscope 0.1.0', 'Scanned 1 Jan 2026, 00:00 UTC']) {
        expect(cover.replace(/ +/g, ' ')).toContain(line);
      }
      // One open critical finding that is known exploited drives the rating.
      expect(cover).toMatch(/Critical/);
      expect(cover.replace(/\s+/g, ' ')).toContain('1 open finding is known to be exploited by attackers (CISA KEV)');
      // Page 2 is the executive summary; the contents on the cover give each section's page.
      expect(text.split('\f')[1]).toMatch(/Executive summary/);
      expect(cover).toMatch(/Executive summary\s+2/);
      // Each section starts a page: the line after the running header is its title.
      const titles = text.split('\f').slice(1).map((page) => page.split('\n').map((l) => l.trim()).filter(Boolean)[1]);
      expect(titles.filter((t) => Object.values(SECTION_TITLES).includes(t!))).toEqual(Object.values(SECTION_TITLES));
      expect(text).toContain('Dependency vulnerability (1)');
      expect(text).toContain('Security weakness (1)');
      expect(text).toMatch(/In progress/);
      for (const raw of ['dependencyVulnerability', 'knownVulnerability', 'inProgress', 'maliciousCode']) expect(text).not.toContain(raw);
      // The critical finding's detail block: description once, evidence, fix.
      // (page 2 gives the top risks in one sentence each; the description itself is printed once, in its detail block)
      const body = text.split('\f').slice(2).join('\f');
      expect(body.split('Hard-coded password').length - 1).toBe(1);
      expect(text).toContain('Remove it');
      expect(text).toContain('etc/shadow at offset 3');
    });

    it('keeps the contents and section titles of the golden outline', async () => {
      const { text } = await pdfText(input, 'outline');
      const pages = text.split('\f');
      const contents = pages[0]!.slice(pages[0]!.indexOf('Contents')).split('\n').map((l) => l.trim().replace(/\s+/g, ' ')).filter(Boolean);
      const titles = pages.slice(1).filter((p) => p.trim()).map((p, i) => `page ${i + 2}: ${p.split('\n').map((l) => l.trim()).filter(Boolean)[1]}`);
      await expect([...contents, '', ...titles].join('\n') + '\n').toMatchFileSnapshot('golden/findings-pdf-outline.txt');
    });

    it('dates known exploitation from the CISA KEV catalogue, on the summary page and in the detail block, and in the HTML', async () => {
      const dated = findings.map((f) => (f.isKev ? { ...f, kev: { dateAdded: '2023-05-12', dueDate: '2023-06-02' } } : f));
      // read in reading order (pdf.js), since a table cell's lines sit between its neighbours' in a layout
      const pdf = (await findReport('findings-pdf')!.generate({ ...input, findings: dated })) as Buffer;
      const { pages } = await readWithPdfjs(pdf);
      const flat = (t: string) => t.replace(/\s+/g, ' ');
      expect(flat(pages[1]!)).toContain('Known exploited since 12 May 2023 (CISA KEV)');
      expect(flat(pages.slice(2).join(' '))).toContain('Known exploited since 12 May 2023: listed in the CISA Known Exploited Vulnerabilities catalogue; CISA required US federal agencies to fix it by 2 Jun 2023.');
      const html = String(await findReport('findings-html')!.generate({ ...input, findings: dated }));
      expect(html).toContain('Known exploited since 12 May 2023 (CISA KEV)');
      expect(html).toContain('fix it by 2 Jun 2023');
      expect(html).toContain('<td>Since 12 May 2023</td>');
      // a KEV finding stored before the dates were kept still says it is exploited, without a date
      const undated = flat((await pdfText(input, 'kev-undated')).text);
      expect(undated).toContain('Known exploited: listed in the CISA Known Exploited Vulnerabilities catalogue.');
      expect(undated).not.toContain('Known exploited since');
    });

    it('names the unpacked formats as a reader knows them, not by handler id, in the PDF and the HTML', async () => {
      const formats = { 'squashfs-v4': 1, uimage: 1, gzip: 3 };
      const withFormats = { ...input, result: { ...result, stats: { ...result.stats, formats } } };
      const { text } = await pdfText(withFormats, 'formats');
      const html = String(await findReport('findings-html')!.generate(withFormats));
      for (const doc of [text, html]) {
        for (const name of ['SquashFS 4.0', 'U-Boot legacy image', 'gzip']) expect(doc).toContain(name);
        for (const id of ['squashfs-v4', 'uimage']) expect(doc).not.toContain(id);
      }
      expect(text).toMatch(/gzip\s+3/);
    });

    it('says so in a sentence when there is no finding', async () => {
      const { text } = await pdfText({ ...input, findings: [] }, 'none');
      expect(text).toContain('The scan reported no findings.');
      expect(text).toContain('No open findings.');
      expect(text).not.toContain('in detail');
    });

    it('keeps the executive summary on one page however long the top risks are', async () => {
      const long = 'A heap overflow in the parser of a network protocol lets remote attackers run code of their choice by sending crafted packets to any interface of the device, without logging in first.';
      const many: ReportFinding[] = Array.from({ length: 30 }, (_, i) => ({
        id: `K${i}`, issueStatus: 'new', fingerprint: `k${i}`, findingType: 'dependencyVulnerability', pname: `CVE-2024-${10000 + i}`, name: 'x', severity: 'critical',
        identifiers: [], occurrences: [{ path: 'bin/x' }], isKev: true, description: long, knownFixedVersion: '1.2.4-with-a-long-suffix',
        // a one-sentence description: the top risk says what an attacker could do, from the vector
        cvss: { cvssV3: { baseScore: 9.6, vector: 'CVSS:3.1/AV:A/AC:L/PR:N/UI:R/S:C/C:H/I:H/A:H', version: '3.1' } }, cvssLatestBaseScore: 9.6,
        component: { ref: `c${i}`, name: `component-with-a-long-name-${i}`, version: `1.2.3-with-a-long-suffix-${i}` },
      }));
      const { text, pages } = await pdfText({ ...input, findings: many, sections: ['summary'] }, 'long-summary');
      expect(pages).toBe(2);
      expect(text).toMatch(/…and \d+ more of the top 10 in the findings section/);
      expect(text.replace(/\s+/g, ' ')).toContain('An attacker on the same local network, without logging in, if a');
    });

    it('prints only the chosen sections after the cover', async () => {
      const { text, pages } = await pdfText({ ...input, sections: ['summary'] }, 'summary');
      expect(pages).toBe(2);
      expect(text).toContain('Executive summary');
      expect(text).not.toContain('What was analysed');
    });
  });
});

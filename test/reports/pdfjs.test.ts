// The findings PDF and the PQC PDF open in pdf.js (what Firefox and most web viewers use) without a warning or an
// error: every page's fonts and drawing are decoded and its text read back; and in Poppler (pdfinfo, pdffonts, pdftotext,
// pdftoppm) with nothing on standard error. A damaged file shows each check can fail.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScanResult } from '../../src/engine/types.js';
import { findReport } from '../../src/reports/index.js';
import type { ReportFinding } from '../../src/reports/report.js';
import { tempDir } from '../engine/crypto/support.js';
import { NOW, generatedScan } from './pqc-fixture.js';
import { readWithPdfjs } from './pdfjs-check.js';
import { readWithPoppler } from './poppler-check.js';
import { needCommands } from '../support/requirements.js';

const havePoppler = needCommands(['pdfinfo', 'pdffonts', 'pdftotext', 'pdftoppm'], 'the findings PDF in Poppler');

const result: ScanResult = {
  engineVersion: '0.1.0',
  image: { fileName: 'fw.bin', size: 10, hashes: { sha256: 'a'.repeat(64), sha1: 'b'.repeat(40), md5: 'c'.repeat(32) }, type: 'squashfs' },
  files: [], unknownChunks: [], components: [], cryptoAssets: [], problems: [], findings: [],
  stats: { durationMs: 1, filesExtracted: 0, bytesExtracted: 0, formats: { squashfs: 1, gzip: 2 } },
};
const findings: ReportFinding[] = Array.from({ length: 12 }, (_, i) => ({
  id: `F${i}`, issueStatus: (['new', 'inProgress', 'remediated', 'rejected'] as const)[i % 4], fingerprint: `fp${i}`, findingType: 'dependencyVulnerability',
  pname: `CVE-2024-${1000 + i}`, name: `CVE-2024-${1000 + i} in zlib 1.2.11`, severity: (['critical', 'high', 'medium', 'low'] as const)[i % 4],
  identifiers: [{ cve: `CVE-2024-${1000 + i}` }], occurrences: [{ path: 'fw.bin_extract/0-100.squashfs-v4/lib/libz.so.1', evidence: 'zlib 1.2.11 ‘quoted’ — ünïcödé' }],
  description: 'An out-of-bounds write in inflate lets a crafted stream corrupt memory. Further detail follows here.', cvssLatestBaseScore: 9.8 - i / 2,
  isKev: i === 0, ...(i === 0 ? { kev: { dateAdded: '2023-05-12', dueDate: '2023-06-02' } } : {}),
  component: { ref: 'z', name: 'zlib', version: '1.2.11' }, knownFixedVersion: '1.2.12',
}));

describe('PDF reports in pdf.js', () => {
  it('the findings PDF: every page read, with its text, and no warning', async () => {
    const pdf = (await findReport('findings-pdf')!.generate({ result, findings, now: NOW })) as Buffer;
    const { pages, messages } = await readWithPdfjs(pdf);
    expect(messages).toEqual([]);
    expect(pages.length).toBeGreaterThanOrEqual(5);
    for (const [i, text] of pages.entries()) expect(text.trim().length, `page ${i + 1}`).toBeGreaterThan(20);
    const all = pages.join('\n');
    for (const f of findings) expect(all).toContain(f.pname);
    expect(all).toContain('Known exploited since 12 May 2023');
  }, 60_000);

  it('the PQC PDF: every page read and no warning', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const pdf = (await findReport('pqc-pdf')!.generate({ result: await generatedScan(dir), now: NOW })) as Buffer;
      const { pages, messages } = await readWithPdfjs(pdf);
      expect(messages).toEqual([]);
      expect(pages.length).toBeGreaterThanOrEqual(2);
      expect(pages.join('\n')).toContain('Quantum readiness score');
    } finally {
      await cleanup();
    }
  }, 60_000);

  it.runIf(havePoppler)('the findings PDF in Poppler: no warning; a damaged cross-reference entry is reported', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const pdf = (await findReport('findings-pdf')!.generate({ result, findings, now: NOW })) as Buffer;
      await writeFile(join(dir, 'ok.pdf'), pdf);
      const ok = readWithPoppler(join(dir, 'ok.pdf'), join(dir, 'page'));
      expect(ok.messages).toEqual([]);
      expect(ok.pages).toBeGreaterThanOrEqual(5);
      // the fourth entry of the cross-reference table, 5 bytes off: Poppler says so and rebuilds the table
      const table = /\nxref\n0 \d+\n/.exec(pdf.toString('latin1'))!;
      const at = table.index + table[0].length + 20 * 3;
      const entry = pdf.subarray(at, at + 20).toString('latin1');
      const damaged = Buffer.concat([pdf.subarray(0, at), Buffer.from(`${String(Number(entry.slice(0, 10)) + 5).padStart(10, '0')}${entry.slice(10)}`, 'latin1'), pdf.subarray(at + 20)]);
      await writeFile(join(dir, 'damaged.pdf'), damaged);
      const bad = readWithPoppler(join(dir, 'damaged.pdf'));
      expect(bad.messages.some((m) => /Error/.test(m)), bad.messages.join('\n')).toBe(true);
    } finally {
      await cleanup();
    }
  }, 60_000);

  it('reports what pdf.js warns about: a damaged cross-reference offset', async () => {
    const pdf = (await findReport('findings-pdf')!.generate({ result, findings: findings.slice(0, 2), now: NOW })) as Buffer;
    const at = pdf.lastIndexOf('startxref');
    const damaged = Buffer.concat([pdf.subarray(0, at), Buffer.from('startxref\n123\n%%EOF\n')]);
    const { messages } = await readWithPdfjs(damaged);
    expect(messages.some((m) => m.startsWith('Warning:')), messages.join('\n')).toBe(true);
  }, 60_000);
});

// The findings PDF and HTML reports of the TRENDnet corpus image (scanned once with the NVD corpus records and the
// CISA KEV catalogue), with findings in every triage state, a history and a previous image: the PDF read back with
// pdftotext, rendered with pdftoppm and its fonts listed with pdffonts; the HTML opened in Chromium (playwright-core),
// checked with axe-core, sorted and filtered, with every request outside the page refused and counted.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scan } from '../../src/engine/scan.js';
import type { ScanResult } from '../../src/engine/types.js';
import { isDetailed } from '../../src/reports/findings-pdf-body.js';
import { SECTION_TITLES } from '../../src/reports/findings-pdf.js';
import { findReport } from '../../src/reports/index.js';
import type { ReportFinding, ReportInput } from '../../src/reports/report.js';
import { needCommands, needSharedFile } from '../support/requirements.js';
import { openOffline } from './html-in-chromium.js';
import { readWithPdfjs } from './pdfjs-check.js';
import { readWithPoppler, type PopplerReading } from './poppler-check.js';
import { corpus, sharedPath } from '../support/shared.js';
import { sharedNvdAndKev } from '../support/vuln-source.js';

const IMAGE = 'trendnet-tew733gr-rootfs.squashfs';
const haveInputs = needSharedFile(sharedPath('corpus', IMAGE), `../shared/corpus/${IMAGE}`, 'the findings report corpus tests')
  && needSharedFile(sharedPath('vulndata', 'nvd-corpus'), '../shared/vulndata/nvd-corpus', 'the findings report corpus tests');
const havePoppler = needCommands(['pdftotext', 'pdftoppm', 'pdfinfo', 'pdffonts'], 'the findings PDF corpus tests');
const haveChromium = needCommands(['chromium'], 'the findings HTML report tests in Chromium');
const STATUSES = ['new', 'inProgress', 'remediated', 'rejected'] as const;
const RAW_LABELS = ['dependencyVulnerability', 'knownVulnerability', 'maliciousCode', 'inProgress', 'vulnerable_code_not_in_execute_path'];

let dir: string;
let input: ReportInput;

/** Every triage state, a comment and a justification on rejected findings, a history on each triaged one. */
function triaged(result: ScanResult): Pick<ReportInput, 'findings' | 'history' | 'baseline'> {
  const findings: ReportFinding[] = result.findings.map((f, i) => {
    const issueStatus = STATUSES[i % 4]!;
    return {
      ...f, id: `F${String(i + 1).padStart(4, '0')}`, issueStatus,
      ...(issueStatus === 'rejected' ? { justification: 'vulnerable_code_not_in_execute_path' as const, statusComment: 'The service is disabled in this build' } : {}),
    };
  });
  const history: NonNullable<ReportInput['history']> = {};
  for (const f of findings) {
    if (f.issueStatus === 'new') continue;
    history[f.id] = [
      { status: 'inProgress', time: '2026-11-20T10:00:00.000Z', author: 'lead@example.com', comment: 'Assigned to the platform team' },
      ...(f.issueStatus !== 'inProgress' ? [{ status: f.issueStatus, time: '2026-11-25T15:30:00.000Z', comment: f.statusComment ?? 'Fixed in build 42', ...(f.justification ? { justification: f.justification } : {}) }] : []),
    ];
  }
  // The previous image had all but the first three findings, and one that is gone now.
  const baseline = {
    image: { id: 'B', name: 'TEW-733GR', version: '1.02', createTime: '2026-10-01T09:00:00.000Z' },
    findings: [...findings.slice(3), { fingerprint: 'resolved-one', pname: 'CVE-2019-0001', name: 'gone', severity: 'high' as const, findingType: 'dependencyVulnerability' as const }],
  };
  return { findings, history, baseline };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fs-findings-corpus-'));
  if (!haveInputs) return;
  const vulnerabilities = await sharedNvdAndKev();
  const result = await scan(corpus(IMAGE), { workDir: join(dir, 'work'), vulnerabilities });
  input = {
    result, ...triaged(result), now: new Date('2026-11-27T22:00:00.000Z'),
    subject: { product: { id: 'P', name: 'TRENDnet TEW-733GR' }, image: { id: 'I', name: 'TEW-733GR', version: '1.03', createTime: '2026-11-26T08:00:00.000Z' }, scan: { id: 'S', createTime: '2026-11-26T08:01:00.000Z' } },
  };
}, 240_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.runIf(haveInputs && havePoppler)('findings PDF of the TRENDnet image', () => {
  let pdfPath: string;
  let text: string;
  let poppler: PopplerReading;
  beforeAll(async () => {
    pdfPath = join(dir, 'trendnet.pdf');
    await writeFile(pdfPath, (await findReport('findings-pdf')!.generate(input)) as Buffer);
    poppler = readWithPoppler(pdfPath, join(dir, 'page'));
    text = poppler.text;
  }, 120_000);

  it('has the sections in order, every finding, human labels only, each description once', () => {
    const pages = text.split('\f');
    const titles = pages.slice(1).map((page) => page.split('\n').map((l) => l.trim()).filter(Boolean)[1]);
    expect(titles.filter((t) => Object.values(SECTION_TITLES).includes(t!))).toEqual(Object.values(SECTION_TITLES));
    const findings = input.findings!;
    expect(new Set(findings.map((f) => f.issueStatus))).toEqual(new Set(STATUSES));
    for (const f of findings) expect(text, f.pname).toContain(f.pname);
    for (const raw of RAW_LABELS) expect(text, raw).not.toContain(raw);
    for (const label of ['In progress', 'Remediated', 'Rejected (not', 'Dependency vulnerability', 'Security weakness', 'Vulnerable code never runs', 'Assigned to the platform team']) expect(text).toContain(label);
    // Descriptions of critical and high findings, in their detail blocks: once each in the whole report, the summary
    // page included (compared without white space, since lines wrap at '/' as well as at spaces).
    const body = text.replace(/\s+/g, '');
    const detailed = findings.filter((f) => isDetailed(f) && f.description);
    expect(detailed.length).toBeGreaterThan(3);
    for (const f of detailed) {
      const words = f.description!.replace(/\s+/g, '');
      expect(body.split(words).length - 1, f.pname).toBe(1);
    }
    expect(text).toMatch(/Since TEW-733GR 1\.02 \(uploaded 1 Oct 2026\): 3 new, 1 resolved, \d+ unchanged\./);
  });

  it('breaks cleanly: every page after the cover starts with a title, a detail block or a repeated table header', () => {
    const firsts = text.split('\f').slice(1).filter((p) => p.trim()).map((page) => page.split('\n').map((l) => l.trim()).filter(Boolean)[1]!);
    const titles = [...Object.values(SECTION_TITLES), 'Critical and high findings in detail'];
    for (const [i, line] of firsts.entries()) {
      const ok = titles.includes(line) || /^(Critical|High) · /.test(line) || /^(Severity|Component|Key|Algorithm|Program)\s{2,}/.test(line);
      expect(ok, `page ${i + 2} starts with "${line}"`).toBe(true);
    }
    // the long security weakness table went on over pages, with its header on each
    expect(firsts.filter((l) => /^Severity\s+Finding\s+Status$/.test(l)).length).toBeGreaterThanOrEqual(2);
  });

  it('opens in pdf.js without a warning or an error, every page with its text', async () => {
    const { pages, messages } = await readWithPdfjs(await readFile(pdfPath));
    expect(messages).toEqual([]);
    expect(pages).toHaveLength(poppler.pages);
    for (const [i, page] of pages.entries()) expect(page.trim().length, `page ${i + 1}`).toBeGreaterThan(20);
    const all = pages.join('\n');
    for (const f of input.findings!) expect(all, f.pname).toContain(f.pname);
  }, 120_000);

  it('says on page 2 alone what the risk is and what to fix first', async () => {
    const { pages } = await readWithPdfjs(await readFile(pdfPath));
    const page = pages[1]!.replace(/\s+/g, ' ');
    expect(page).toMatch(/Overall risk: Critical\. 3 open findings are rated critical, led by CVE-2016-2148 in busybox 1\.14\.1\./);
    expect(page).toContain('What to fix first');
    // the first actions: the critical BusyBox vulnerability without a recorded fix, then the BusyBox upgrade
    expect(page).toMatch(/1 No fixed version is recorded for CVE-2016-2148 in busybox 1\.14\.1: .* Critical severity/);
    expect(page).toMatch(/Upgrade busybox 1\.14\.1 to 1\.29\.0 or later\./);
    expect(page).toContain('Top 10 risks');
    // rule findings by their names, never by a bare rule id
    expect(page).toMatch(/Telnetd with a built-in account "Alphanetworks" \(S80telnetd\.sh\) · rule telnetd-builtin-account/);
    expect(page).not.toMatch(/(^|[^·] rule )telnetd-builtin-account —/);
  }, 60_000);

  it('renders every page in Poppler without a warning, none blank, with its fonts embedded', async () => {
    expect(poppler.messages).toEqual([]);
    const pages = poppler.pages;
    const images = (await readdir(dir)).filter((f) => f.startsWith('page') && f.endsWith('.pgm')).sort();
    expect(images).toHaveLength(pages);
    for (const image of images) {
      const pgm = await readFile(join(dir, image));
      // P5 header: magic, width, height, maxval, then one byte a pixel.
      const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 40).toString('latin1'))!;
      const pixels = pgm.subarray(header[0].length);
      expect(pixels.some((p) => p < 200), `${image} is blank`).toBe(true);
    }
    const fonts = poppler.fonts;
    expect(fonts.length).toBeGreaterThan(0);
    for (const font of fonts) expect(font, font).toMatch(/\s+yes\s+yes\s+yes\s+\d+\s+\d+$/);
  });
});

describe.runIf(haveInputs && haveChromium)('findings HTML of the TRENDnet image, in Chromium', () => {
  it('passes axe-core, sorts and filters offline, and fetches nothing', async () => {
    const { page, requests, axeViolations, close } = await openOffline(String(await findReport('findings-html')!.generate(input)));
    try {
      expect(await axeViolations()).toEqual([]);

      const rows = page.locator('#findings-table tbody tr');
      const total = input.findings!.length;
      expect(await rows.count()).toBe(total);
      // Filter: status "In progress", then a text search on top.
      await page.selectOption('#filter-status', 'inProgress');
      const inProgress = input.findings!.filter((f) => f.issueStatus === 'inProgress').length;
      expect(await page.locator('#findings-table tbody tr:not([hidden])').count()).toBe(inProgress);
      await expect.poll(() => page.locator('#filter-count').textContent()).toBe(`${inProgress} of ${total} findings shown`);
      await page.selectOption('#filter-status', '');
      await page.fill('#filter-text', 'CVE-');
      const cves = input.findings!.filter((f) => /CVE-/.test(f.pname) || /CVE-/.test(f.description ?? '')).length;
      expect(await page.locator('#findings-table tbody tr:not([hidden])').count()).toBeGreaterThanOrEqual(Math.min(cves, 1));
      await page.fill('#filter-text', '');
      // Sort by CVSS ascending, then descending.
      const cvss = async () => (await page.locator('#findings-table tbody tr td:nth-child(6)').allTextContents()).map((t) => (t === '-' ? -1 : Number(t)));
      await page.click('#findings-table thead th:nth-child(6) button');
      const up = await cvss();
      expect(up).toEqual([...up].sort((a, b) => a - b));
      await page.click('#findings-table thead th:nth-child(6) button');
      const down = await cvss();
      expect(down).toEqual([...down].sort((a, b) => b - a));
      expect(await page.getAttribute('#findings-table thead th:nth-child(6)', 'aria-sort')).toBe('descending');
      expect(requests).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it.runIf(havePoppler)('prints: every finding row and detail block shows on paper, the findings table\'s header repeats on each of its pages, and no page is blank', async () => {
    const printed = join(dir, 'trendnet-html-print.pdf');
    const { page, close } = await openOffline(String(await findReport('findings-html')!.generate(input)));
    try {
      await page.emulateMedia({ media: 'print' });
      // with print styles: every row and every detail block is laid out (none hidden), the filters are not
      const shown = (await page.evaluate(`(() => {
        const laidOut = (selector) => [...document.querySelectorAll(selector)].filter((e) => e.offsetHeight > 0).length;
        return { rows: laidOut('#findings-table tbody tr'), details: laidOut('details'), allDetails: document.querySelectorAll('details').length, filters: laidOut('.filters') };
      })()`)) as { rows: number; details: number; allDetails: number; filters: number };
      expect(shown).toMatchObject({ rows: input.findings!.length, details: shown.allDetails, filters: 0 });
      await page.pdf({ path: printed, format: 'A4', printBackground: true });
    } finally {
      await close();
    }
    const reading = readWithPoppler(printed, join(dir, 'print-page'));
    expect(reading.messages).toEqual([]);
    expect(reading.pages).toBeGreaterThan(2);
    const pages = reading.text.split('\f').filter((p) => p.trim());
    expect(pages).toHaveLength(reading.pages);
    for (const [i, page] of pages.entries()) expect(page.trim().length, `printed page ${i + 1}`).toBeGreaterThan(20);
    // pages holding findings rows (a severity, then later on the line a triage status) start with the table's header
    const rowPages = pages.filter((p) => /\b(?:Critical|High|Medium|Low)\b[^\n]*\b(?:New|In progress|Remediated|Rejected)\b/.test(p));
    expect(rowPages.length).toBeGreaterThan(1);
    for (const page of rowPages) expect(page).toMatch(/Severity\s+Finding\s+Type/);
  }, 120_000);
});

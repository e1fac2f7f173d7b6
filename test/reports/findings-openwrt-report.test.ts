// The findings PDF and HTML reports of the OpenWrt corpus image (Xiaomi Mi Router 3G v2), scanned with the NVD corpus
// records and the CISA KEV catalogue, untriaged as an offline `firmscope scan -f findings-pdf` makes them: the PDF
// read by Poppler and pdf.js with nothing printed, every finding named, each description once, page 2 naming the
// known-exploited kernel flaw and its upgrade, no raw build hash or NUL marker; the HTML through axe-core offline.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scan } from '../../src/engine/scan.js';
import { isDetailed } from '../../src/reports/findings-pdf-body.js';
import { findReport } from '../../src/reports/index.js';
import type { ReportInput } from '../../src/reports/report.js';
import { needCommands, needSharedFile } from '../support/requirements.js';
import { corpus, sharedPath } from '../support/shared.js';
import { sharedNvdAndKev } from '../support/vuln-source.js';
import { openOffline } from './html-in-chromium.js';
import { readWithPdfjs } from './pdfjs-check.js';
import { readWithPoppler } from './poppler-check.js';

const IMAGE = 'openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin';
const haveInputs = needSharedFile(sharedPath('corpus', IMAGE), `../shared/corpus/${IMAGE}`, 'the OpenWrt findings report tests')
  && needSharedFile(sharedPath('vulndata', 'nvd-corpus'), '../shared/vulndata/nvd-corpus', 'the OpenWrt findings report tests');
const havePoppler = needCommands(['pdftotext', 'pdftoppm', 'pdfinfo', 'pdffonts'], 'the OpenWrt findings PDF tests');
const haveChromium = needCommands(['chromium'], 'the OpenWrt findings HTML report in Chromium');

let dir: string;
let input: ReportInput;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fs-findings-openwrt-'));
  if (!haveInputs) return;
  const vulnerabilities = await sharedNvdAndKev();
  input = { result: await scan(corpus(IMAGE), { workDir: join(dir, 'work'), vulnerabilities }), now: new Date('2026-11-28T12:00:00.000Z') };
}, 240_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.runIf(haveInputs && havePoppler)('findings PDF of the OpenWrt image', () => {
  it('opens in Poppler and pdf.js without a warning, names every finding, prints each description once', async () => {
    const pdf = (await findReport('findings-pdf')!.generate(input)) as Buffer;
    const path = join(dir, 'openwrt.pdf');
    await writeFile(path, pdf);
    const poppler = readWithPoppler(path, join(dir, 'page'));
    expect(poppler.messages).toEqual([]);
    const { pages, messages } = await readWithPdfjs(await readFile(path));
    expect(messages).toEqual([]);
    expect(pages).toHaveLength(poppler.pages);
    const findings = input.result.findings;
    expect(findings.some((f) => f.isKev)).toBe(true);
    for (const f of findings) expect(poppler.text, f.pname).toContain(f.pname);
    const body = poppler.text.replace(/\s+/g, '');
    for (const f of findings.filter((f) => isDetailed({ ...f, id: '', issueStatus: 'new' }) && f.description)) {
      expect(body.split(f.description!.replace(/\s+/g, '')).length - 1, f.pname).toBe(1);
    }
    // what a reader would stumble on: the kernel's 32-digit build hash in its version (evidence quotes the package
    // database verbatim, so only the summary and the components table are checked), the engine's NUL marker
    const components = poppler.text.slice(poppler.text.lastIndexOf('Components'), poppler.text.lastIndexOf('Cryptographic material'));
    expect(components.replace(/\s+/g, '')).toContain('kernel5.4.43-1-8b3aaa48…Operating');
    for (const part of [components, pages[0]!, pages[1]!]) expect(part).not.toContain('8b3aaa48ce5dfb66263bde9605e79a76');
    expect(poppler.text).not.toContain('\\0');
    expect(poppler.text).not.toContain('sha256:');

    const page2 = pages[1]!.replace(/\s+/g, ' ');
    expect(page2).toContain('Overall risk: Critical. 1 open finding is known to be exploited by attackers (CISA KEV), led by CVE-2022-0185 in kernel 5.4.43-1-8b3aaa48….');
    expect(page2).toMatch(/1 Upgrade kernel 5\.4\.43-1-8b3aaa48… to 5\.4\.173 or later\. Known exploited since 21 Aug 2024 \(CISA KEV\)/);
    // a top risk whose description is one sentence says what an attacker could do instead of repeating it
    expect(page2).toContain('CVE-2020-8597 — ppp 2.4.8.git-2020-05-25-2: An attacker on the network, without logging in, could read its data');
    // the findings table gives the date the kernel flaw was listed as exploited
    expect(poppler.text).toMatch(/CVE-2022-0185 .*21 Aug/);
  }, 180_000);
});

describe.runIf(haveInputs && haveChromium)('findings HTML of the OpenWrt image, in Chromium', () => {
  it('passes axe-core and fetches nothing', async () => {
    const html = String(await findReport('findings-html')!.generate(input));
    const components = html.slice(html.indexOf('<section id="components"'), html.indexOf('<section id="crypto"'));
    expect(components).toContain('<td>kernel</td><td>5.4.43-1-8b3aaa48…</td><td>Operating system</td>');
    expect(components).not.toContain('8b3aaa48ce5dfb66263bde9605e79a76');
    const { page, requests, axeViolations, close } = await openOffline(html);
    try {
      expect(await axeViolations()).toEqual([]);
      expect(await page.locator('#findings-table tbody tr').count()).toBe(input.result.findings.length);
      expect(requests).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);
});

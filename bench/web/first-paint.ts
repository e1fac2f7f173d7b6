// First paint of the web UI's main pages with 1,000 findings in an image, in Debian's chromium (playwright-core).
// Starts a real server on a temporary SQLite data folder, scans a corpus image, adds 1,000 findings to its scan
// (copies of one real finding of that scan, with their own fingerprints, names and severities), scans a second
// image for the compare page, signs in once through the login page, then loads each page RUNS times as a fresh
// document (a reload: the login page's session signs in again without the form, as after any reload) and prints,
// per page, the median and worst of:
//   fcp   first-contentful-paint of the document the page is drawn in (after the sign-in round trip), and
//   data  time from that document's start until the page's data is in the DOM (its table rows, heading or chart);
//   total wall time from the navigation request until then, the sign-in redirects included.
// Run: FIRMSCOPE_SHARED_DIR=/work/shared npx tsx bench/web/first-paint.ts   (needs web/dist: npm run build:web)
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { loadConfig } from '../../src/config.js';
import type { EngineFinding } from '../../src/engine/types.js';
import { startServer } from '../../src/server.js';
import { call, freePort, passwordToken, uploadAndScan } from '../../test/support/server.js';

const SHARED = process.env.FIRMSCOPE_SHARED_DIR ?? '/work/shared';
const RUNS = Number(process.env.FIRMSCOPE_BENCH_RUNS ?? 5);
const FINDINGS = 1000;
const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };
const IMAGE = join(SHARED, 'corpus', 'OVMF_VARS.secboot.fd');
const SECOND = join(SHARED, 'corpus', 'pkcs12.p12');
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'informational'] as const;

if (!existsSync(IMAGE) || !existsSync(SECOND)) throw new Error(`corpus images missing under ${SHARED}/corpus`);
if (!existsSync(new URL('../../web/dist/index.html', import.meta.url))) throw new Error('build the UI first: npm run build:web');

const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-web-bench-'));
const port = await freePort();
const server = await startServer(loadConfig({
  PORT: String(port), FIRMSCOPE_BASE_URL: `http://127.0.0.1:${port}`, HOST: '127.0.0.1', FIRMSCOPE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', FIRMSCOPE_JOB_POLL_MS: '100',
  FIRMSCOPE_ADMIN_EMAIL: ADMIN.email, FIRMSCOPE_ADMIN_PASSWORD: ADMIN.password,
}));
const base = server.url;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });

try {
  const token = await passwordToken(base, ADMIN.email, ADMIN.password);
  const productId: string = (await call(base, token, 'POST', '/api/v4/products', { name: 'Bench router' })).body.id.split('/')[1];
  const imageId = await uploadAndScan(base, token, productId, 'Bench 1.0', 'OVMF_VARS.secboot.fd', readFileSync(IMAGE));
  const scanId: string = (await call(base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/scans`)).body.scans[0].id;
  const { repos } = server.runtime;
  const real = await repos.findings.ofScan(scanId);
  if (real.length === 0) throw new Error('the scan found nothing to copy');
  const { id: _id, ...template } = real[0]! as EngineFinding & { id?: string };
  const now = new Date().toISOString();
  for (let i = real.length; i < FINDINGS; i++) {
    const severity = SEVERITIES[i % SEVERITIES.length]!;
    await repos.findings.insertIfAbsent({ scanId, imageId, productId }, {
      ...template, fingerprint: `bench-${i}`, pname: `BENCH-${String(i).padStart(4, '0')}`, name: `Bench finding ${i} (${severity})`, severity, isKev: i % 50 === 0,
    }, now);
  }
  const grid = await call(base, token, 'POST', '/api/v4/grids/findings:gridList', { filters: [{ field: 'imageId', value: imageId }] });
  const findingId: string = grid.body.rows[0].id;
  await uploadAndScan(base, token, productId, 'Bench 0.9', 'pkcs12.p12', readFileSync(SECOND));

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${base}/`);
  await page.getByLabel('E-mail').fill(ADMIN.email);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();

  // The element that says the page's data is on screen; a MutationObserver in the page notes when each first
  // appears (Playwright's own polling would add up to 500 ms).
  const pages: Array<{ name: string; path: string; ready: string }> = [
    { name: 'dashboard (table)', path: '/', ready: 'table tbody th a[href^="/products/"]' },
    { name: 'dashboard (chart)', path: '/', ready: '.chart svg' },
    { name: 'product', path: `/products/${productId}`, ready: 'table tbody th a[href*="/images/"]' },
    { name: 'image (findings)', path: `/products/${productId}/images/${imageId}`, ready: 'table.findings tbody tr a' },
    { name: 'finding', path: `/products/${productId}/findings/${findingId}`, ready: 'main h1' },
    { name: 'compare', path: `/compare?product=${productId}`, ready: 'table.findings tbody tr' },
  ];
  await context.addInitScript(`{
    const selectors = ${JSON.stringify(pages.map((p) => p.ready))};
    window.__seen = {};
    new MutationObserver(() => {
      for (const s of selectors) if (!(s in window.__seen) && document.querySelector(s)) window.__seen[s] = performance.now();
    }).observe(document, { childList: true, subtree: true });
  }`);
  const stamp = new Date().toISOString();
  console.log(`web first paint, ${FINDINGS} findings in the image; ${stamp}; ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${RUNS} runs per page`);
  console.log('page                 fcp median/max   data median/max   total median/max (ms)');
  for (const target of pages) {
    const fcp: number[] = [];
    const data: number[] = [];
    const total: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = Date.now();
      await page.goto(`${base}${target.path}`);
      await page.locator(target.ready).first().waitFor();
      const [paint, seen, origin] = (await page.evaluate(`[performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN, window.__seen[${JSON.stringify(target.ready)}], performance.timeOrigin]`)) as [number, number, number];
      fcp.push(paint);
      data.push(seen);
      total.push(origin + seen - started);
    }
    if (process.env.FIRMSCOPE_BENCH_DETAIL === '1') {
      // Where the last run's time went: each request of the final document, start and end (ms from its start).
      const entries = (await page.evaluate(`performance.getEntriesByType('resource').map((e) => [e.name.replace(location.origin, ''), Math.round(e.startTime), Math.round(e.responseEnd)])`)) as Array<[string, number, number]>;
      for (const [name, start, end] of entries) console.log(`    ${String(start).padStart(5)} ${String(end).padStart(5)}  ${name.slice(0, 110)}`);
    }
    const m = (xs: number[]) => `${median(xs).toFixed(0).padStart(5)} /${Math.max(...xs).toFixed(0).padStart(5)}`;
    console.log(`${target.name.padEnd(20)} ${m(fcp)}     ${m(data)}     ${m(total)}`);
  }
  console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await browser.close();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

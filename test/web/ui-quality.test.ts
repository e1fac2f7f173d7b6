// The web UI's quality bullets in a real browser (Debian's chromium through playwright-core) against one real
// server on a temporary data folder, beside the main flow of ui.test.ts: upload by drag and drop with progress,
// speed and cancel (a throttled network), a scan that fails with its reason on the page, debug-symbol files added
// after the upload, the dashboard's live scan phase and percent and its recent escalations, every page at 390 px and
// in the dark theme with axe-core, keyboard-only triage, and no token or code in the server's request log.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildElfWithDebug, type ElfDebugBuild } from '../engine/binaries/debug-inputs.js';
import { COLOUR_RULES, expectAccessible } from '../support/axe.js';
import { ARTIFACTS, ensureWebBuild, launchChromium, shown, signInAt, tabTo } from '../support/browser.js';
import { needCommands } from '../support/requirements.js';
import { ADMIN, call, passwordToken, startTestServer, uploadAndScan, waitFor, type TestServer } from '../support/server.js';
import { corpus, haveShared } from '../support/shared.js';

const IMAGE = 'OVMF_VARS.secboot.fd';
const SECOND_IMAGE = 'pkcs12.p12';
const SLOW_IMAGE = 'openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin';
const ready = needCommands(['chromium', 'gcc', 'objcopy', 'strip'], 'the browser tests of the web UI')
  && haveShared('corpus', IMAGE) && haveShared('corpus', SECOND_IMAGE) && haveShared('corpus', SLOW_IMAGE);

describe.runIf(ready)('web UI quality in chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let token: string;
  let productId: string;
  let imageId: string;
  let secondImageId: string;
  let dir: string;
  let elf: ElfDebugBuild;
  const pageErrors: string[] = [];
  const logLines: string[] = [];
  const api = (method: string, path: string, body?: unknown) => call(server.base, token, method, path, body);
  const newContext = (options: Parameters<Browser['newContext']>[0] = {}) => browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true, ...options });
  const signIn = (context: BrowserContext) => signInAt(server.base, context, ADMIN.email, ADMIN.password, pageErrors);

  beforeAll(async () => {
    ensureWebBuild();
    mkdirSync(ARTIFACTS, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), 'ui-quality-'));
    elf = buildElfWithDebug(dir, 'tool', 'gcc', ['-g']);
    const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
    [server, browser] = await Promise.all([startTestServer({ logger }), launchChromium()]);
    token = await passwordToken(server.base, ADMIN.email, ADMIN.password);
    productId = (await api('POST', '/api/v4/products', { name: 'Gateway Y' })).body.id.split('/')[1];
    imageId = await uploadAndScan(server.base, token, productId, 'Gateway Y', IMAGE, readFileSync(corpus(IMAGE)));
    secondImageId = await uploadAndScan(server.base, token, productId, 'Gateway Y 2', SECOND_IMAGE, readFileSync(corpus(SECOND_IMAGE)));
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('uploads by drag and drop with progress, speed and cancel; a file that is no firmware fails with its reason', async () => {
    const context = await newContext();
    const page = await signIn(context);
    await page.goto(`${server.base}/products/${productId}`);
    await shown(page.getByRole('heading', { name: 'Upload an image' }));

    // Drop a 3 MiB text file on the drop zone (a DataTransfer holding a File, as a real drop carries).
    const text = 'this is a plain text file, not a firmware image\n'.repeat(65_536);
    const drop = await page.evaluateHandle(`(() => { const t = new DataTransfer(); t.items.add(new File([${JSON.stringify(text.slice(0, 48))}.repeat(65536)], 'notes.txt', { type: 'text/plain' })); return t; })()`);
    await page.dispatchEvent('.dropzone', 'dragover', { dataTransfer: drop });
    expect(await page.locator('.dropzone').getAttribute('class')).toContain('dragging');
    await page.dispatchEvent('.dropzone', 'drop', { dataTransfer: drop });
    await shown(page.locator('.dropzone').getByText('notes.txt'));
    expect(await page.locator('.dropzone').textContent()).toContain(`(${(text.length / 1024 / 1024).toFixed(1)} MiB)`);
    expect(await page.getByLabel('Image name').inputValue()).toBe('notes');

    // A slow uplink (256 KiB/s): the progress bar moves, with the speed; Cancel stops it and nothing is stored.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
    await page.getByRole('button', { name: 'Upload and scan' }).click();
    const line = page.locator('.progress-line span');
    await expect.poll(async () => Number(/^(\d+)%/.exec((await line.textContent().catch(() => '')) ?? '')?.[1] ?? 0), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await line.textContent()).toMatch(/^\d+% · [\d.]+ (B|KiB|MiB) of 3\.0 MiB · [\d.]+ (B|KiB|MiB)\/s$/);
    const percent = Number(await page.getByRole('progressbar', { name: 'Upload progress' }).getAttribute('value'));
    expect(percent).toBeGreaterThan(0);
    expect(percent).toBeLessThan(100);
    await screenshot(page, 'upload-progress');
    await page.getByRole('button', { name: 'Cancel upload' }).click();
    await shown(page.getByRole('alert').getByText('Upload cancelled. Nothing was stored.'));
    expect(await page.locator('.progress-line').count()).toBe(0);
    expect((await api('GET', `/api/v4/products/${productId}/images`)).body.images.map((i: { name: string }) => i.name)).not.toContain('notes');

    // Again at full speed: the image is created, its scan fails, and the page says why and what to do.
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await page.getByRole('button', { name: 'Upload and scan' }).click();
    await page.waitForURL(/\/images\/[0-9A-Z]+$/);
    const failed = page.getByRole('alert').filter({ hasText: 'The scan failed.' });
    await shown(failed, 120_000);
    expect(await failed.textContent()).toContain('no known firmware format; the file looks like ASCII text');
    expect(await failed.textContent()).toContain('Upload the image again, or check that it is a firmware image.');
    await shown(page.getByText('This scan failed; see the Scans tab for its reason'));
    await page.getByRole('tab', { name: 'Scans' }).click();
    await shown(page.getByRole('tabpanel').getByText('Reason: no known firmware format; the file looks like ASCII text'));
    await expectAccessible(page, 'the image page of a failed scan');
    await screenshot(page, 'scan-failed');
    await context.close();
  }, 240_000);

  it('adds a debug-symbol file to an image after its upload, which queues a new scan', async () => {
    const elfImage = await uploadAndScan(server.base, token, productId, 'tool', 'tool', readFileSync(elf.stripped));
    const context = await newContext();
    const page = await signIn(context);
    await page.goto(`${server.base}/products/${productId}/images/${elfImage}`);
    await page.getByRole('tab', { name: 'Scans' }).click();
    const scans = page.locator('ol.scan-list > li');
    await expect.poll(() => scans.count()).toBe(1);
    await page.getByLabel('Debug file').setInputFiles(elf.debug);
    await page.getByRole('button', { name: 'Attach and rescan' }).click();
    await shown(page.getByRole('status').filter({ hasText: 'Attached; a new scan is queued.' }));
    await expect.poll(() => scans.count()).toBe(2);
    const files = (await api('GET', `/api/v4/products/${productId}/images/${elfImage}/files`)).body;
    expect(JSON.stringify(files)).toContain(elf.debug.split('/').pop());
    await context.close();
  }, 240_000);

  it('shows scans in progress with their live phase and percent, and recent escalations, on the dashboard', async () => {
    // An escalation as vulnerability re-matching records it (a finding of the first image whose risk rose).
    const finding = (await api('POST', '/api/v4/grids/findings:gridList', { filters: [{ field: 'imageId', value: imageId }, { field: 'findingType', value: 'knownVulnerability' }] })).body.rows[0];
    expect(finding).toBeDefined();
    await server.server.runtime.repos.escalations.record({ productId, imageId, fingerprint: finding.fingerprint, reason: 'kev', details: { isKev: { old: false, new: true } }, now: new Date().toISOString() });

    const context = await newContext();
    const page = await signIn(context);
    const escalations = page.getByRole('region', { name: 'Recent escalations' });
    await shown(escalations.getByRole('link', { name: finding.name }));
    expect(await escalations.textContent()).toContain('kev · Gateway Y ·');

    // A large image scanned now: the dashboard lists it in progress with its phase and percent, updated live
    // (polled), until it completes and leaves the list.
    const upload = new FormData();
    upload.set('imageName', 'OpenWrt');
    upload.set('file', new Blob([readFileSync(corpus(SLOW_IMAGE))]), SLOW_IMAGE);
    const uploaded = await api('POST', `/api/v4/products/${productId}/images:upload`, upload);
    expect(uploaded.status).toBe(201);
    const uploadedId = String(uploaded.body.id).split('/').pop();
    await page.reload();
    const running = page.getByRole('region', { name: 'Scans in progress' }).locator('li');
    await shown(running.first(), 30_000);
    // What the page showed, and what the server said at the same moments (its progress as phase and percent, with
    // how long each lasted): a state the server kept for longer than the page's poll interval (2 s) plus slack
    // must have reached the page without a reload. A quick scan's states can all fall between two polls, and a
    // scan thread starting on a loaded machine stays at its first state: then one state is all there is to see.
    const seen = new Set<string>();
    const served = new Map<string, number>();
    let current: { state: string; since: number } | undefined;
    await waitFor(async () => {
      // a short timeout: once the scan has left the list there is no element, and the locator would wait for one
      const text = (await running.first().textContent({ timeout: 500 }).catch(() => null)) ?? '';
      if (text) seen.add(text.replace(/\s+/g, ' '));
      const images = (await api('GET', `/api/v4/products/${productId}/images`)).body.images as Array<{ id: string; latestScan?: { latestScanState: { type: string; progress?: { phase: string; percent: number } } } }>;
      const scanState = images.find((i) => i.id.split('/').pop() === uploadedId)?.latestScan?.latestScanState;
      const progress = scanState?.progress;
      // only a running scan's progress is shown with a phase; other states (queued, done) are not held against the page
      const state = !['running', 'in_progress'].includes(scanState?.type ?? '') ? `(${scanState?.type})` : progress ? `${progress.phase} ${Math.round(progress.percent)}%` : 'waiting';
      const now = Date.now();
      if (current?.state !== state) {
        if (current) served.set(current.state, Math.max(served.get(current.state) ?? 0, now - current.since));
        current = { state, since: now };
      }
      return (await running.count()) === 0 ? true : undefined;
    }, 180_000, 200);
    if (current) served.set(current.state, Math.max(served.get(current.state) ?? 0, Date.now() - current.since));
    const states = [...seen];
    expect(states.every((s) => /^Gateway Y · OpenWrt .+ \d+%$/.test(s)), states.join(' | ')).toBe(true);
    // Live, without a reload: the scan leaves the list when it completes, and every state the server held long
    // enough was shown.
    await shown(page.getByRole('region', { name: 'Scans in progress' }).getByText('No scan is running.'));
    const longLived = [...served].filter(([state, ms]) => ms > 3000 && !state.startsWith('(')).map(([state]) => state);
    for (const state of longLived) {
      const [phase, percent] = [state.slice(0, state.lastIndexOf(' ')), state.slice(state.lastIndexOf(' ') + 1)];
      expect(states.some((s) => s.includes(phase) && s.endsWith(` ${percent}`)), `${state} (held ${served.get(state)} ms) not among: ${states.join(' | ')}`).toBe(true);
    }
    await context.close();
  }, 300_000);

  it('fits 390 px and passes axe on every page, in the light theme and with the colour rules in the dark one', async () => {
    const findingId = (await api('POST', '/api/v4/grids/findings:gridList', { filters: [{ field: 'imageId', value: imageId }] })).body.rows[0].id;
    const pages: Array<[string, string, (page: Page) => Promise<unknown>]> = [
      ['dashboard', '/', (p) => shown(p.getByRole('link', { name: 'Gateway Y', exact: true }))],
      ['product', `/products/${productId}`, (p) => shown(p.getByRole('heading', { name: 'Images' }))],
      ['image', `/products/${productId}/images/${imageId}`, (p) => shown(p.locator('table.findings tbody tr a').first())],
      ['finding', `/products/${productId}/findings/${findingId}`, (p) => shown(p.getByRole('heading', { name: 'History' }))],
      ['compare', `/compare?product=${productId}&target=${secondImageId}`, (p) => shown(p.getByRole('heading', { name: 'Component changes' }))],
      ['administration', '/admin', (p) => shown(p.getByRole('table', { name: 'Machine clients' }).or(p.getByText('No machine client yet.')))],
      ['rules', '/admin/rules', (p) => shown(p.getByRole('table', { name: 'Built-in rules' }))],
      ['webhooks', '/webhooks', (p) => shown(p.getByRole('heading', { level: 1, name: 'Webhooks' }))],
    ];
    const background: Record<string, string> = { light: 'rgb(245, 246, 248)', dark: 'rgb(15, 18, 22)' };
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of [390, 1280]) {
        const context = await newContext({ viewport: { width, height: 844 }, colorScheme: scheme });
        const page = await signIn(context);
        // The theme follows the system setting.
        expect(await page.evaluate('getComputedStyle(document.documentElement).backgroundColor')).toBe(background[scheme]);
        for (const [name, path, loaded] of pages) {
          // In-app navigation, as the back button does (the app routes on popstate): one page load per context, so
          // axe-core is injected once per context instead of once per page.
          await page.evaluate(`history.pushState(null, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'))`);
          await loaded(page);
          const where = `the ${name} page at ${width} px, ${scheme}`;
          expect(await page.evaluate('document.documentElement.scrollWidth'), `${where}: nothing wider than the screen`).toBeLessThanOrEqual(width);
          // the dark theme changes colours only: its pages are checked again with the rules that read colours
          const rules = scheme === 'dark' ? COLOUR_RULES : undefined;
          await expectAccessible(page, where, rules);
          if (name === 'image') {
            for (const tab of ['Components', 'Files', 'Crypto', 'Binaries', 'Scans', 'Reports'] as const) {
              await page.getByRole('tab', { name: tab }).click();
              await shown(page.getByRole('tabpanel').getByRole('heading', { level: 2 }).first());
              expect(await page.evaluate('document.documentElement.scrollWidth'), `${where}, ${tab} tab`).toBeLessThanOrEqual(width);
              await expectAccessible(page, `${where}, ${tab} tab`, rules);
            }
          }
          if (width === 390 && (scheme === 'dark' || name === 'dashboard')) await screenshot(page, `${name}-${width}-${scheme}`);
        }
        await context.close();
      }
    }
  }, 600_000);

  it('triages a finding with the keyboard alone', async () => {
    const context = await newContext();
    const page = await signIn(context);
    // Dashboard → product → image, following links with Tab and Enter.
    await tabTo(page, page.getByRole('link', { name: 'Gateway Y', exact: true }));
    await page.keyboard.press('Enter');
    await shown(page.getByRole('heading', { name: 'Images' }));
    await tabTo(page, page.getByRole('link', { name: 'Gateway Y', exact: true }));
    await page.keyboard.press('Enter');
    await shown(page.locator('table.findings tbody tr a').first());
    // The tab list is one Tab stop; the arrow keys move between its tabs.
    await tabTo(page, page.getByRole('tab', { name: 'Findings' }));
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'Components' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.evaluate('document.activeElement.id')).toBe('tab-Components');
    await shown(page.getByRole('tabpanel').getByRole('heading', { name: /^Components/ }));
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByRole('tab', { name: 'Findings' }).getAttribute('aria-selected')).toBe('true');
    // Into the findings table, open the first finding.
    const link = page.locator('table.findings tbody tr a').first();
    await shown(link);
    const first = (await link.textContent())!;
    await tabTo(page, link, 150);
    await page.keyboard.press('Enter');
    await shown(page.getByRole('heading', { level: 1, name: first }));
    // Set a status with the keyboard: choose with the arrow keys, type a comment, save with Enter.
    const status = page.getByLabel('Status');
    await tabTo(page, status);
    const before = await status.inputValue();
    await page.keyboard.press('ArrowDown');
    const chosen = await status.inputValue();
    expect(chosen).not.toBe(before);
    if (chosen === 'rejected') {
      await tabTo(page, page.getByLabel('Justification'));
      await page.keyboard.press('ArrowDown');
    }
    await tabTo(page, page.getByLabel('Comment'));
    await page.keyboard.type('Checked with the keyboard.');
    await tabTo(page, page.getByRole('button', { name: 'Save status' }));
    // Focus is visible: the focused control has the focus outline.
    expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
    await page.keyboard.press('Enter');
    await shown(page.getByText('Checked with the keyboard.'));
    await context.close();
  }, 180_000);

  it("never writes a token or an authorization code into the server's request log", async () => {
    const context = await newContext();
    const secrets: string[] = [];
    context.on('response', (response) => {
      if (!response.url().includes('/protocol/openid-connect/token') || response.status() !== 200) return;
      void response.json().then((body: { access_token?: string; refresh_token?: string }) => { secrets.push(...[body.access_token, body.refresh_token].filter((s): s is string => !!s)); }).catch(() => undefined);
    });
    context.on('request', (request) => {
      const code = /[#?&]code=([^&#]+)/.exec(request.url())?.[1];
      if (code) secrets.push(decodeURIComponent(code));
      const posted = request.postData();
      const formCode = posted && /(?:^|&)code=([^&]+)/.exec(posted)?.[1];
      if (formCode) secrets.push(decodeURIComponent(formCode));
    });
    const page = await signIn(context);
    await shown(page.getByRole('link', { name: 'Gateway Y', exact: true }));
    await page.reload();
    await shown(page.getByRole('button', { name: 'Sign out' }));
    await expect.poll(() => secrets.length).toBeGreaterThanOrEqual(3);
    const log = logLines.join('');
    expect(log).toContain('/api/v4/products');
    for (const secret of secrets) expect(log).not.toContain(secret);
    // No JWT at all in the log.
    expect(log).not.toMatch(/eyJ[\w-]{10,}\.[\w-]{10,}\./);
    await context.close();
  }, 120_000);
});

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}


// The web UI in a real browser (Debian's chromium through playwright-core) against one real server on a temporary
// data folder: the flow from sign-in to sign-out, a viewer's access, axe-core on every page, 1280 px and
// 390 px. Screenshots go to test-artifacts/web/ (outside git); FIRMSCOPE_README_SCREENSHOTS=1 also refreshes the
// README's docs/screenshots/*.png.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shown } from '../support/browser.js';
import { needCommands } from '../support/requirements.js';
import { ADMIN, call, passwordToken, startTestServer, uploadAndScan, type TestServer } from '../support/server.js';
import { corpus, haveShared } from '../support/shared.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ARTIFACTS = join(ROOT, 'test-artifacts', 'web');
const README_SHOTS = process.env.FIRMSCOPE_README_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : undefined;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const IMAGE = 'OVMF_VARS.secboot.fd';
const SECOND_IMAGE = 'pkcs12.p12';
const VIEWER = { email: 'viewer@example.com', password: 'viewer-password-1' };
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

const ready = needCommands(['chromium'], 'the browser tests of the web UI') && haveShared('corpus', IMAGE) && haveShared('corpus', SECOND_IMAGE);

let server: TestServer;
let browser: Browser;

/** Runs axe-core on the page; fails on any serious or critical violation, naming rule and elements. */
async function expectAccessible(page: Page, name: string): Promise<void> {
  if (!(await page.evaluate("'axe' in window"))) await page.addScriptTag({ content: AXE_SOURCE });
  // A string, evaluated in the page (the test program has no DOM types).
  const violations = (await page.evaluate(`axe.run().then((r) => r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')))`)) as string[];
  expect(violations, `axe on ${name}`).toEqual([]);
}

async function screenshot(page: Page, name: string, readme = false): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  if (readme && README_SHOTS) await page.screenshot({ path: join(README_SHOTS, `${name}.png`) });
}

/** Script errors of the pages: the flow fails on any. */
const pageErrors: string[] = [];
function watch(page: Page): Page {
  page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
  page.on('console', (message) => { if (message.type() === 'error') console.warn(`browser console: ${message.text()}`); });
  return page;
}

async function signIn(context: BrowserContext, email: string, password: string, page?: Page): Promise<Page> {
  page ??= watch(await context.newPage());
  await page.goto(`${server.base}/`);
  await page.waitForURL(/\/protocol\/openid-connect\/auth/);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await shown(page.getByRole('button', { name: 'Sign out' }));
  expect(page.url()).toBe(`${server.base}/`);
  return page;
}

describe.runIf(ready)('web UI in chromium', () => {
  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'web', 'dist', 'index.html'))) execFileSync('npx', ['vite', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], { cwd: ROOT, stdio: 'inherit' });
    mkdirSync(ARTIFACTS, { recursive: true });
    if (README_SHOTS) mkdirSync(README_SHOTS, { recursive: true });
    [server, browser] = await Promise.all([startTestServer(), chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS })]);
  }, 120_000);

  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    // each step timed: on a loaded CI machine this hook once ran past 60 s, and the log must say which step it was
    for (const [step, close] of [['browser', () => browser?.close()], ['server', () => server?.close()]] as const) {
      const started = Date.now();
      await close();
      if (Date.now() - started > 10_000) console.warn(`ui.test afterAll: closing the ${step} took ${Date.now() - started} ms`);
    }
  }, 180_000);

  it('serves hashed assets with a long cache, and the app for deep links but JSON 404s for API paths', async () => {
    const index = await fetch(`${server.base}/products/x`, { headers: { accept: 'text/html' } });
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
    const asset = /\/assets\/[^"]+\.js/.exec(await index.text())![0];
    const js = await fetch(`${server.base}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toContain('immutable');
    const api = await fetch(`${server.base}/api/v4/nothing`, { headers: { accept: 'text/html' } });
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toContain('application/json');
  });

  it('runs the whole flow: sign in, product, upload, scan, filter, triage, compare, report, sign out', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true, bypassCSP: true });
    const loginPage = await context.newPage();
    await loginPage.goto(`${server.base}/`);
    await loginPage.waitForURL(/\/protocol\/openid-connect\/auth/);
    await expectAccessible(loginPage, 'the login page');
    await loginPage.close();

    // 1. Sign in through the login page; the code comes back in the fragment and leaves the address bar.
    const page = await signIn(context, ADMIN.email, ADMIN.password);
    await shown(page.getByText('No products yet.'));
    await expectAccessible(page, 'the empty dashboard');
    // Keyboard: the first Tab reaches the skip link.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');

    // 2. Create a product.
    await page.getByRole('button', { name: 'New product' }).click();
    await page.getByLabel('Name').fill('Router X');
    await page.getByRole('button', { name: 'Create product' }).click();
    await shown(page.getByRole('heading', { level: 1, name: 'Router X' }));
    await shown(page.getByText('No image yet.'));
    await expectAccessible(page, 'the product page');
    const productId = /\/products\/([0-9A-Z]+)/.exec(page.url())![1]!;

    // 3. Upload a corpus image through the browser (pre-signed URL), 4. watch the scan complete.
    await page.locator('input[type=file]').setInputFiles(corpus(IMAGE));
    await page.getByLabel('Version').fill('1.0');
    await page.getByRole('button', { name: 'Upload and scan' }).click();
    await page.waitForURL(/\/images\/[0-9A-Z]+$/);
    const imageUrl = page.url();
    await shown(page.getByText(/Scan completed|The analysis is incomplete/), 120_000);

    // 5. Filter findings on the server.
    const count = page.getByRole('status').filter({ hasText: /\d+ findings?$/ });
    await expect.poll(async () => Number(/(\d+)/.exec((await count.textContent()) ?? '')?.[1] ?? 0)).toBeGreaterThan(0);
    await page.getByRole('combobox', { name: 'Type' }).selectOption('maliciousCode');
    await shown(page.getByText('No finding matches these filters.'));
    await page.getByRole('combobox', { name: 'Type' }).selectOption('knownVulnerability');
    await shown(page.locator('table.findings tbody tr a').first());
    await expectAccessible(page, 'the image page');
    await screenshot(page, 'image', true);

    // 6. Set a status with a justification.
    const findingName = await page.locator('table.findings tbody tr a').first().textContent();
    await page.locator('table.findings tbody tr a').first().click();
    await shown(page.getByRole('heading', { level: 1, name: findingName! }));
    await page.getByLabel('Status').selectOption('rejected');
    await page.getByLabel('Justification').selectOption('component_not_present');
    await page.getByLabel('Comment').fill('Not shipped in this product.');
    await page.getByRole('button', { name: 'Save status' }).click();
    await shown(page.getByText('Not shipped in this product.'));
    await shown(page.locator('.timeline').getByText('justification: component not present'));
    await expectAccessible(page, 'the finding page');
    await screenshot(page, 'finding');

    // 7. Compare two images (the second uploaded through the API to save time).
    const token = await passwordToken(server.base, ADMIN.email, ADMIN.password);
    await uploadAndScan(server.base, token, productId, 'Router X 2.0', SECOND_IMAGE, readFileSync(corpus(SECOND_IMAGE)));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Compare' }).click();
    await shown(page.getByRole('heading', { level: 1, name: 'Compare images' }));
    await shown(page.getByText(/^Findings: /));
    await shown(page.locator('table.findings tbody td').filter({ hasText: /^(resolved|new)$/ }).first());
    await shown(page.getByRole('heading', { name: 'Component changes' }));
    await expectAccessible(page, 'the compare page');
    await screenshot(page, 'compare', true);

    // 8. Download a report. (A reload: the tokens were in memory, the login page's session signs in again silently.)
    await page.goto(imageUrl);
    await page.getByRole('tab', { name: 'Reports' }).click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download Findings (JSON)' }).click()]);
    const report = JSON.parse(readFileSync((await download.path())!, 'utf8')) as { findings?: unknown[] };
    expect(report.findings?.length).toBeGreaterThan(0);
    // 9. Browse the file tree: the image at the top, what was extracted inside it, one file's details.
    await page.getByRole('tab', { name: 'Files' }).click();
    const tree = page.getByRole('list', { name: /Contents of/ });
    await shown(tree.locator('li').first());
    // The image itself at the top: its hex view shows the image's real first bytes, offset | hex | ASCII.
    await tree.getByRole('button', { name: new RegExp(`^(▸ )?${IMAGE.replace(/\./g, '\\.')}$`) }).click();
    const hex = page.getByRole('table', { name: /^First 256 bytes of the file$/ });
    await shown(hex);
    const imageHead = readFileSync(corpus(IMAGE)).subarray(0, 256);
    expect(await hex.locator('tbody tr').count()).toBe(16);
    const firstRow = hex.locator('tbody tr').first();
    expect(await firstRow.locator('th').textContent()).toBe('00000000');
    const hexOf = (b: Buffer) => [...b].map((x) => x.toString(16).padStart(2, '0')).join(' ');
    expect((await firstRow.locator('td').first().textContent())?.trim()).toBe(`${hexOf(imageHead.subarray(0, 8))}  ${hexOf(imageHead.subarray(8, 16))}`);
    const lastRow = hex.locator('tbody tr').last();
    expect(await lastRow.locator('th').textContent()).toBe('000000f0');
    expect(await lastRow.locator('td').last().textContent()).toBe([...imageHead.subarray(240, 256)].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join(''));
    // Down the folders until a file shows up, then open its details.
    for (let level = 0; level < 6 && (await tree.locator('li[data-kind=file]').count()) === 0; level++) {
      await tree.locator('li[data-kind=folder] > button').first().click();
      await shown(page.getByRole('navigation', { name: 'Folder' }).getByRole('button').nth(level + 1));
    }
    await tree.locator('li[data-kind=file] > button').first().click();
    await shown(page.locator('.file-details').getByText('SHA-256'));
    await shown(page.locator('.file-details').getByRole('table', { name: /^First \d+ bytes of the file$/ }).or(page.getByText('The file is empty.')));
    await shown(page.locator('.file-details').getByText(/^(None\.|Findings citing it)$/).first());
    await expectAccessible(page, "the image page's Files tab");
    await screenshot(page, 'files');
    for (const tab of ['Components', 'Crypto', 'Binaries', 'Scans'] as const) {
      await page.getByRole('tab', { name: tab }).click();
      await shown(page.getByRole('tabpanel').getByRole('heading', { level: 2 }));
      await expectAccessible(page, `the image page's ${tab} tab`);
    }
    // The scan's state timeline: queued, running (with the analysis phases and their times), done.
    const timeline = page.getByRole('list', { name: 'State timeline' }).first();
    await shown(timeline.locator('li[data-state=done]'));
    expect(await timeline.locator(':scope > li').evaluateAll((items) => items.map((li) => li.getAttribute('data-state')))).toEqual(['new', 'running', 'done']);
    expect(await timeline.locator(':scope > li strong').allTextContents()).toEqual(['queued', 'running', 'done']);
    await shown(timeline.getByRole('list', { name: 'Analysis phases' }).getByText(/^unpack/));

    // The dashboard with data: risk per product, trend chart; and administration.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
    await shown(page.getByRole('link', { name: 'Router X', exact: true }));
    await shown(page.locator('.chart svg'));
    await expectAccessible(page, 'the dashboard');
    await screenshot(page, 'dashboard', true);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Administration' }).click();
    await page.getByLabel('Name').fill('ci-pipeline');
    await page.getByRole('button', { name: 'Create client' }).click();
    await expect.poll(async () => (await page.locator('code.secret').textContent())?.length ?? 0).toBeGreaterThan(10);
    // Listed afterwards, without its secret.
    const clientRow = page.getByRole('table', { name: 'Machine clients' }).getByRole('row', { name: /ci-pipeline/ });
    await shown(clientRow);
    expect(await clientRow.textContent()).not.toContain((await page.locator('code.secret').textContent())!);
    await expectAccessible(page, 'the administration page');

    // Malicious-code rules: a source that does not compile shows the compiler's message; a good one is added,
    // switched off and deleted; a built-in rule is switched off and on again.
    await page.getByRole('link', { name: 'Malicious-code rules' }).click();
    await shown(page.getByRole('heading', { level: 1, name: 'Malicious-code rules' }));
    await page.getByLabel('Name').fill('Broken rule');
    await page.getByLabel('YARA-X source').fill('rule broken { condition: $missing }');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await shown(page.getByLabel('Compiler messages').getByText(/missing/).first());
    await page.getByLabel('YARA-X source').fill('rule ui_probe { strings: $a = "UI-PROBE-STRING" condition: $a }');
    await page.getByRole('button', { name: 'Add rule' }).click();
    const mine = page.getByRole('table', { name: "Your organisation's rules" });
    await shown(mine.getByRole('row', { name: /Broken rule/ }).getByText('enabled'));
    await mine.getByRole('button', { name: 'Disable Broken rule' }).click();
    await shown(mine.getByRole('row', { name: /Broken rule/ }).getByText('disabled'));
    await expectAccessible(page, 'the rules page');
    await screenshot(page, 'rules');
    page.once('dialog', (dialog) => void dialog.accept());
    await mine.getByRole('button', { name: 'Delete Broken rule' }).click();
    await shown(page.getByText('None yet.', { exact: false }));
    const builtIn = page.getByRole('table', { name: 'Built-in rules' });
    const firstBuiltIn = builtIn.getByRole('button', { name: /^Disable / }).first();
    const builtInName = (await firstBuiltIn.getAttribute('aria-label'))!.slice('Disable '.length);
    await firstBuiltIn.click();
    await builtIn.getByRole('button', { name: `Enable ${builtInName}` }).click();
    await shown(builtIn.getByRole('button', { name: `Disable ${builtInName}` }));

    // A phone: nothing wider than the screen, still accessible.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(imageUrl);
    await shown(page.getByText(/Scan completed|The analysis is incomplete/));
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'the image page at 390 px');
    await screenshot(page, 'image-phone');
    await page.setViewportSize({ width: 1280, height: 800 });

    // The API documentation page signs in through the same login (its session is still open: no form).
    const docs = watch(await context.newPage());
    await docs.goto(`${server.base}/docs`);
    await docs.getByRole('button', { name: /Authorize/ }).first().click();
    const loginScheme = docs.locator('.auth-container').filter({ hasText: 'authorizationCode' });
    const [popup] = await Promise.all([docs.waitForEvent('popup'), loginScheme.locator('button', { hasText: 'Authorize' }).click()]);
    await popup.waitForEvent('close', { timeout: 15_000 }).catch(() => undefined);
    await shown(loginScheme.locator('button', { hasText: 'Logout' }));
    await docs.close();

    // 10. Sign out: the tokens were only in memory, so they are gone.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await shown(page.getByText('You are signed out.'));
    await expectAccessible(page, 'the signed-out page');
    expect(await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })')).not.toMatch(/access_token|refresh_token/);
    // The identity provider's session ended too: the next visit asks for the password again.
    await page.getByRole('button', { name: 'Sign in' }).click();
    await shown(page.getByLabel('Password'));
    await context.close();
  }, 300_000);

  it('shows a viewer no write controls, and the server refuses their writes', async () => {
    const adminToken = await passwordToken(server.base, ADMIN.email, ADMIN.password);
    expect((await call(server.base, adminToken, 'POST', '/api/v4/users', { ...VIEWER, role: 'viewer' })).status).toBe(201);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    const page = await signIn(context, VIEWER.email, VIEWER.password);
    await page.getByRole('link', { name: 'Router X', exact: true }).click();
    await shown(page.getByRole('heading', { name: 'Images' }));
    expect(await page.getByRole('button', { name: 'New product' }).count()).toBe(0);
    expect(await page.getByText('Upload an image').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Administration' }).count()).toBe(0);
    await page.locator('table tbody th a').first().click();
    await page.locator('table.findings tbody tr a').first().click();
    await shown(page.getByRole('heading', { name: 'History' }));
    expect(await page.getByRole('button', { name: 'Save status' }).count()).toBe(0);
    await expectAccessible(page, 'the finding page of a viewer');

    const viewerToken = await passwordToken(server.base, VIEWER.email, VIEWER.password);
    expect((await call(server.base, viewerToken, 'POST', '/api/v4/products', { name: 'Not allowed' })).status).toBe(403);
    const [, , productId, , findingId] = new URL(page.url()).pathname.split('/');
    expect((await call(server.base, viewerToken, 'POST', `/api/v4/products/${productId}/findings/${findingId}/CreateFindingState`, { status: 'remediated' })).status).toBe(403);
    await context.close();
  }, 120_000);

  it('says on the page that the session expired, with a sign-in button that comes back to it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    const page = watch(await context.newPage());
    await page.clock.install();
    await signIn(context, ADMIN.email, ADMIN.password, page);
    await page.getByRole('link', { name: 'Router X', exact: true }).click();
    await page.locator('table tbody th a').first().click();
    await shown(page.getByRole('tab', { name: 'Scans' }));

    // One call refused (401: a revoked or expired token): that part of the page says so, with a sign-in button.
    const scanList = /\/images\/[0-9A-Z]+\/scans\?/;
    await page.route(scanList, (route) => route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify({ message: 'the token has expired', details: [] }) }));
    await page.getByRole('tab', { name: 'Scans' }).click();
    await shown(page.getByRole('tabpanel').getByRole('alert').filter({ hasText: 'Your session expired.' }).getByRole('button', { name: 'Sign in again' }));
    await expectAccessible(page, 'the session-expired notice');
    await page.unroute(scanList);

    // The silent renew fails and the token runs out: the page stays, with the notice on top; calls stop.
    const tokenEndpoint = '**/protocol/openid-connect/token';
    await page.route(tokenEndpoint, (route) => route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ error: 'invalid_grant', error_description: 'Session not active' }) }));
    const imageUrl = page.url();
    await page.clock.fastForward('31:00');
    const notice = page.locator('main > .session-expired');
    await shown(notice);
    expect(page.url()).toBe(imageUrl);
    await page.getByRole('tab', { name: 'Components' }).click();
    await shown(page.getByRole('tabpanel').getByText('Your session expired.'));
    await screenshot(page, 'session-expired');

    // Signing in again (the provider's session is still open: no form) comes back to the same page.
    await page.unroute(tokenEndpoint);
    await notice.getByRole('button', { name: 'Sign in again' }).click();
    await page.waitForURL(imageUrl);
    await shown(page.getByRole('tab', { name: 'Components' }));
    expect(await page.locator('.session-expired').count()).toBe(0);
    await context.close();
  }, 120_000);
});

// The Webhooks page in a real browser (Debian's chromium through playwright-core) against a real server and a
// receiver on 127.0.0.1: add a webhook (secret shown once), send a test event and see it delivered, rotate the
// secret, redeliver, delete; axe-core on the page (screenshot in test-artifacts/web/). Kept apart from ui.test.ts, which other pages share.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/axe.js';
import { shown } from '../support/browser.js';
import { needCommands } from '../support/requirements.js';
import { ADMIN, startTestServer, waitFor, type TestServer } from '../support/server.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ARTIFACTS = join(ROOT, 'test-artifacts', 'web');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Whether the built web UI has the Webhooks page (a build older than it does not). */
function builtWithWebhooks(): boolean {
  try {
    const assets = join(ROOT, 'web', 'dist', 'assets');
    return readdirSync(assets).some((f) => f.endsWith('.js') && readFileSync(join(assets, f), 'utf8').includes('Add a webhook'));
  } catch {
    return false;
  }
}

describe.runIf(needCommands(['chromium'], 'the browser test of the Webhooks page'))('Webhooks page in chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let receiver: WebhookReceiver;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!builtWithWebhooks()) execFileSync('npx', ['vite', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], { cwd: ROOT, stdio: 'inherit' });
    receiver = await startReceiver();
    [server, browser] = await Promise.all([
      startTestServer({ env: { FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE: '1', FIRMSCOPE_WEBHOOK_RETRY_SCHEDULE: '100ms' } }),
      chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS }),
    ]);
  }, 180_000);

  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await server?.close();
    await receiver?.close();
  });

  it('adds a webhook, shows its secret once, sends a test, rotates the secret, redelivers and deletes', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${server.base}/`);
    await page.waitForURL(/\/protocol\/openid-connect\/auth/);
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await shown(page.getByRole('heading', { level: 1, name: 'Webhooks' }));
    await shown(page.getByText('No webhooks yet.'));
    await expectAccessible(page, 'the empty Webhooks page');

    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('image.created').check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = (await page.locator('code.secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.locator('code.secret').count()).toBe(0);
    const row = page.getByRole('row', { name: new RegExp(receiver.url.replace(/[.?]/g, '\\$&')) });
    await shown(row);
    expect(await row.textContent()).toContain('image.created');

    await row.getByRole('button', { name: 'Send test' }).click();
    await shown(page.getByRole('heading', { name: `Deliveries to ${receiver.url}` }));
    await shown(page.getByRole('row', { name: /webhook\.test.*succeeded.*204/ }), 20_000);
    expect(receiver.verify(secret, receiver.received[0]!)).toMatchObject({ type: 'webhook.test' });
    await expectAccessible(page, 'the Webhooks page with deliveries');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'webhooks.png'), fullPage: true });

    await row.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = (await page.locator('code.secret').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('button', { name: 'Redeliver' }).click();
    await waitFor(async () => (await page.getByRole('row', { name: /webhook\.test.*succeeded.*204/ }).count()) === 2 || undefined, 20_000, 100);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    expect(receiver.verify(rotated, receiver.received[1]!)).toMatchObject({ type: 'webhook.test' });

    await row.getByRole('button', { name: 'Delete' }).click();
    await shown(page.getByText('No webhooks yet.'));
    await context.close();
  }, 120_000);
});

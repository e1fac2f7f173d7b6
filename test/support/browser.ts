// Shared pieces of the browser tests: Debian's chromium through playwright-core, the web UI's build, and signing in
// on the built-in login page.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'web');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Builds web/dist when it is missing (a fresh checkout whose `npm run build` did not run). */
export function ensureWebBuild(): void {
  if (!existsSync(join(ROOT, 'web', 'dist', 'index.html'))) execFileSync('npx', ['vite', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'error'], { cwd: ROOT, stdio: 'inherit' });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** Collects the page's script errors into `errors` (a test fails on any). */
export function watchErrors(page: Page, errors: string[]): Page {
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
  return page;
}

/**
 * Waits until `target` is visible, checking every 20 ms. Playwright's own waitFor checks at growing intervals (after
 * 0, 20, 50, 100, 100 and then every 500 ms), so an element that appears after 300 ms is seen at 770 ms: the
 * browser tests waited about half a second per page for nothing.
 */
export async function shown(target: Locator, timeout = 30_000): Promise<void> {
  const end = Date.now() + timeout;
  while (!(await target.isVisible())) {
    if (Date.now() > end) throw new Error(`${target} was not shown within ${timeout} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Opens `base`, is sent to the login page, signs in, and waits for the signed-in frame. */
export async function signInAt(base: string, context: BrowserContext, email: string, password: string, errors: string[]): Promise<Page> {
  const page = watchErrors(await context.newPage(), errors);
  await page.goto(`${base}/`);
  await page.waitForURL(/\/protocol\/openid-connect\/auth/);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await shown(page.getByRole('button', { name: 'Sign out' }));
  expect(page.url()).toBe(`${base}/`);
  return page;
}

/**
 * Presses Tab until `target` has the focus (at most `limit` presses): proves the control is reachable by keyboard
 * in tab order. Returns how many presses it took.
 */
export async function tabTo(page: Page, target: Locator, limit = 80): Promise<number> {
  await shown(target);
  const trail: string[] = [];
  for (let presses = 1; presses <= limit; presses++) {
    await page.keyboard.press('Tab');
    // Runs in the page (the test program has no DOM types, hence globalThis).
    if (await target.evaluate((element: unknown) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement)) return presses;
    trail.push((await page.evaluate(`(() => { const e = document.activeElement; return e ? e.tagName + ' ' + (e.textContent || '').trim().slice(0, 30) : 'none'; })()`)) as string);
  }
  throw new Error(`${target} was not reached with ${limit} Tab presses; focus went through: ${trail.join(' | ')}`);
}

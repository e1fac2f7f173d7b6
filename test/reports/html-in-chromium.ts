// A report's HTML opened in Debian's Chromium (playwright-core) with every request refused and recorded, and
// axe-core at hand: what the findings HTML report tests share.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

export interface OfflinePage {
  page: Page;
  /** The URLs the page asked for (all refused). */
  requests: string[];
  /** axe-core's violations, as 'rule (node count)'. */
  axeViolations(): Promise<string[]>;
  close(): Promise<void>;
}

export async function openOffline(html: string): Promise<OfflinePage> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const page = await browser.newPage();
    const requests: string[] = [];
    await page.route('**/*', (route) => {
      requests.push(route.request().url());
      return route.abort();
    });
    await page.setContent(html, { waitUntil: 'load' });
    return {
      page, requests,
      async axeViolations() {
        await page.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
        return page.evaluate(async () => {
          const r = await (globalThis as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }> } }).axe.run();
          return r.violations.map((v) => `${v.id} (${v.nodes.length})`);
        });
      },
      close: () => browser.close(),
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

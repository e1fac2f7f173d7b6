// axe-core in a playwright page for the browser tests: fails on any serious or critical violation, naming the rule
// and elements. The page's context needs `bypassCSP: true` (the script is injected inline).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The rules whose outcome depends on the page's colours: a page checked in full in one theme is checked again in
 * another with only these (the themes change colours, not the document).
 */
export const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/** `rules`: only these axe rules (all of axe's default ones otherwise). */
export async function expectAccessible(page: Page, name: string, rules?: readonly string[]): Promise<void> {
  if (!(await page.evaluate("'axe' in window"))) await page.addScriptTag({ content: AXE_SOURCE });
  const options = rules ? JSON.stringify({ runOnly: { type: 'rule', values: rules } }) : '{}';
  // A string, evaluated in the page (the test program has no DOM types).
  const violations = (await page.evaluate(`axe.run(document, ${options}).then((r) => r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')))`)) as string[];
  expect(violations, `axe on ${name}`).toEqual([]);
}

// The offline commands set a larger interrupt budget before the engine loads (src/cli/tiering.ts): a function must
// run about four times as much bytecode before V8 optimises it. Each case runs in a fresh process, since the flag is
// process-wide; %GetOptimizationStatus tells when the function has been optimised.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/cli-process.js';
import { delayOptimization } from '../../src/cli/tiering.js';

const module = pathToFileURL(join(projectRoot, 'src', 'cli', 'tiering.ts')).href;

/** Calls of a small summing function until V8 has optimised it (synchronous compiles, so the count is exact). */
function callsUntilOptimised(delay: boolean, nodeFlags: string[] = []): number {
  const script = `
    const { delayOptimization } = await import(${JSON.stringify(module)});
    if (${delay}) delayOptimization();
    const sum = new Function('a', 'let s = 0; for (let i = 0; i < a.length; i++) s += a[i]; return s;');
    const data = Array.from({ length: 16 }, (_, i) => i);
    const optimised = new Function('f', 'return (%GetOptimizationStatus(f) & 16) !== 0;');
    let calls = 0;
    while (!optimised(sum) && calls < 1e6) { sum(data); calls++; }
    console.log(calls);`;
  const flags = ['--allow-natives-syntax', '--no-concurrent-recompilation', ...nodeFlags];
  const run = spawnSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', script], { cwd: projectRoot, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return Number(run.stdout.trim().split('\n').at(-1));
}

describe('delayOptimization', () => {
  it('makes V8 optimise a function after about four times as many calls', () => {
    const before = callsUntilOptimised(false);
    const after = callsUntilOptimised(true);
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(1e6);
    expect(after / before).toBeGreaterThan(3);
    expect(after / before).toBeLessThan(5);
  }, 60_000);

  it("leaves an operator's own --interrupt-budget alone", () => {
    expect(delayOptimization(['--interrupt-budget=1000'])).toBe(false);
    expect(delayOptimization(['--interrupt_budget', '1000'])).toBe(false);
    const own = callsUntilOptimised(true, ['--interrupt-budget=67584']);
    expect(own / callsUntilOptimised(false)).toBeLessThan(1.5);
  }, 60_000);
});

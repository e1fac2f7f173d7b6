// The -modules.cjs files of the offline commands (src/cli/compiled-modules.ts): a module is loaded on its first
// import, and the file is compiled from its V8 code cache when that cache is at least as new as the file.
import { copyFileSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { bundledModule, writeCodeCache } from '../../src/cli/compiled-modules.js';

const dir = mkdtempSync(join(tmpdir(), 'fs-compiled-modules-'));
const dirUrl = pathToFileURL(`${dir}/`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

// A modules file as the build makes them: each module's loader runs its top level on the first call only.
const SOURCE = `
const loads = (globalThis.__compiledModulesTest ??= []);
let answer;
module.exports = {
  "engine/answer.js": () => (answer ??= (loads.push(__filename), { value: 6 * 7, name: require("node:path").basename(__filename) })),
};
`;

/** A new modules file in the test folder (each test its own: the process keeps what it loaded). */
function modulesFile(name: string): string {
  const path = join(dir, name);
  writeFileSync(path, SOURCE);
  return path;
}

/** What bundledModule said about the code cache (FIRMSCOPE_DEBUG), and the module it gave. */
function load(file: string): { state: string | undefined; module: unknown } {
  vi.stubEnv('FIRMSCOPE_DEBUG', '1');
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  const module = bundledModule(file, 'engine/answer.js', dirUrl);
  vi.restoreAllMocks();
  return { state: lines.join('').match(/code cache (.*)\n/)?.[1], module };
}

/** Copies a file and its cache under a new name, the cache `cacheAge` seconds newer than the file (negative: older). */
function copyWithCache(from: string, to: string, cacheAge: number): void {
  copyFileSync(from, join(dir, to));
  copyFileSync(`${from}.v8cache`, join(dir, `${to}.v8cache`));
  const at = Date.now() / 1000;
  utimesSync(join(dir, to), at, at);
  utimesSync(join(dir, `${to}.v8cache`), at + cacheAge, at + cacheAge);
}

describe('a command\'s modules file', () => {
  const built = modulesFile('built.cjs');
  const size = writeCodeCache(built);

  it('is compiled from the code cache the build wrote, and loads each module once, on its first import', () => {
    expect(size).toBeGreaterThan(0);
    copyWithCache(built, 'fresh.cjs', 1);
    const before = ((globalThis as { __compiledModulesTest?: string[] }).__compiledModulesTest ?? []).length;
    const first = load('fresh.cjs');
    expect(first.state).toBe('used');
    expect(first.module).toEqual({ value: 42, name: 'fresh.cjs' });
    expect(bundledModule('fresh.cjs', 'engine/answer.js', dirUrl)).toBe(first.module);
    const loads = (globalThis as { __compiledModulesTest?: string[] }).__compiledModulesTest!;
    expect(loads.slice(before)).toEqual([join(dir, 'fresh.cjs')]);
  });

  it('is compiled without the cache when the cache is older than the file (a later build of the file alone)', () => {
    copyWithCache(built, 'stale.cjs', -10);
    const { state, module } = load('stale.cjs');
    expect(state).toBe('none');
    expect(module).toEqual({ value: 42, name: 'stale.cjs' });
  });

  it('is compiled without the cache when V8 rejects it, and when there is none', () => {
    copyWithCache(built, 'rejected.cjs', 1);
    writeFileSync(join(dir, 'rejected.cjs.v8cache'), Buffer.alloc(64, 7));
    utimesSync(join(dir, 'rejected.cjs.v8cache'), Date.now() / 1000 + 1, Date.now() / 1000 + 1);
    expect(load('rejected.cjs')).toEqual({ state: 'rejected by V8', module: { value: 42, name: 'rejected.cjs' } });
    modulesFile('uncached.cjs');
    expect(load('uncached.cjs')).toEqual({ state: 'none', module: { value: 42, name: 'uncached.cjs' } });
  });

  it('names the build as the fix for a module it does not hold', () => {
    expect(() => bundledModule('built.cjs', 'engine/missing.js', dirUrl)).toThrow(/does not hold engine\/missing\.js: run `npm run build`/);
  });
});

// `firmscope scan` and `unpack` load their bundle (dist/bundle/, scripts/bundle-commands.mjs) when it is at least as
// new as the command's compiled module, and give the same output as the modules themselves; so do the compiled
// worker threads from theirs (dist/bundle/threads/: the task threads in those scans, the service's scan thread below).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { bundleOf } from '../../src/cli/bundled.js';
import type * as EngineRunner from '../../src/jobs/engine-runner.js';
import { compiledThreadModule, THREAD_MODULES } from '../../src/engine/module-worker.js';
import { childEnv, firmscopeCommand, projectRoot } from '../support/cli-process.js';
import { settle } from '../support/requirements.js';
import { corpus, haveShared, sharedPath } from '../support/shared.js';

const dir = mkdtempSync(join(tmpdir(), 'fs-bundled-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

describe('which module an offline command loads', () => {
  const cli = join(dir, 'dist', 'cli');
  const cliUrl = pathToFileURL(`${cli}/`);
  mkdirSync(cli, { recursive: true });
  mkdirSync(join(dir, 'dist', 'bundle'));
  const at = (path: string, seconds: number) => {
    writeFileSync(path, '');
    utimesSync(path, seconds, seconds);
  };

  it('takes the bundle when it is at least as new as the command module, and the module otherwise', () => {
    expect(bundleOf('scan', cliUrl)).toBeUndefined(); // neither exists
    at(join(cli, 'scan.js'), 2_000_000_000);
    expect(bundleOf('scan', cliUrl)).toBeUndefined(); // no bundle
    at(join(dir, 'dist', 'bundle', 'scan.js'), 1_999_999_999);
    expect(bundleOf('scan', cliUrl)).toBeUndefined(); // an older bundle: a later tsc changed the module
    at(join(dir, 'dist', 'bundle', 'scan.js'), 2_000_000_000);
    expect(bundleOf('scan', cliUrl)?.href).toBe(pathToFileURL(join(dir, 'dist', 'bundle', 'scan.js')).href);
    expect(bundleOf('unpack', cliUrl)).toBeUndefined();
  });

  it('takes the module when FIRMSCOPE_NO_BUNDLE=1', () => {
    at(join(cli, 'scan.js'), 2_000_000_000);
    at(join(dir, 'dist', 'bundle', 'scan.js'), 2_000_000_001);
    expect(bundleOf('scan', cliUrl)).toBeDefined();
    vi.stubEnv('FIRMSCOPE_NO_BUNDLE', '1');
    expect(bundleOf('scan', cliUrl)).toBeUndefined();
  });
});

const IMAGE = 'openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin';
const distCli = pathToFileURL(join(projectRoot, 'dist', 'cli') + '/');
const threadBundles = pathToFileURL(join(projectRoot, 'dist', 'bundle', 'threads') + '/');
const threadModule = (name: keyof typeof THREAD_MODULES) => compiledThreadModule(pathToFileURL(join(projectRoot, 'dist', THREAD_MODULES[name])), name, threadBundles);
const built = firmscopeCommand()[0]!.endsWith(join('bin', 'firmscope.js'))
  && ['scan', 'unpack'].every((name) => bundleOf(name as 'scan' | 'unpack', distCli) !== undefined)
  && Object.keys(THREAD_MODULES).every((name) => threadModule(name as keyof typeof THREAD_MODULES).href.startsWith(threadBundles.href));
const ready = haveShared('corpus', IMAGE) && haveShared('vulndata', 'nvd-corpus') && settle(built ? [] : ['dist/ is not built, or its bundles are older than it (run `npm run build`)'], 'the tests of the built bundles');

describe.runIf(ready)('the built bundles', () => {
  const firmscope = (args: string[], bundle: boolean, env: Record<string, string> = {}) => {
    const run = spawnSync(process.execPath, [...firmscopeCommand(), ...args], {
      cwd: projectRoot,
      encoding: 'utf8',
      env: childEnv({ FIRMSCOPE_NO_BUNDLE: bundle ? undefined : '1', FIRMSCOPE_DATA_DIR: join(dir, 'data'), ...env }),
    });
    expect(run.status, run.stderr).toBe(0);
    return run;
  };
  /** The result without its timings. */
  const stable = (path: string) => JSON.stringify(JSON.parse(readFileSync(path, 'utf8')), (key, value: unknown) => (key === 'durationMs' || key === 'phases' ? undefined : value));

  it('scan: the same result, cache keys included, through the bundle and through the modules', () => {
    // A local vulnerability database, so that the scans match vulnerabilities through the store's modules too.
    firmscope(['vulndb', 'import', sharedPath('vulndata', 'nvd-corpus')], false);
    const results = [true, false].map((bundle) => {
      const name = bundle ? 'bundle' : 'modules';
      // Each with its own cache, then again with it: the second run reuses the first's results by their keys.
      const args = (run: number) => ['scan', corpus(IMAGE), '-q', '-o', join(dir, `${name}-${run}.json`), '--work-dir', join(dir, `work-${name}-${run}`), '--cache-dir', join(dir, `cache-${name}`)];
      firmscope(args(1), bundle);
      firmscope(args(2), bundle);
      return [stable(join(dir, `${name}-1.json`)), JSON.parse(readFileSync(join(dir, `${name}-2.json`), 'utf8')).summary.cache];
    });
    expect(results[0]![0]).toBe(results[1]![0]);
    expect((JSON.parse(results[0]![0]) as { findings: Array<{ name: string }> }).findings.filter((f) => f.name.startsWith('CVE-')).length).toBeGreaterThan(0);
    expect(results[0]![1].image).toBe('hit');
    expect(results[1]![1].image).toBe('hit');
    // The modules' run finds the bundle's cache entries: one engine digest, one set of keys.
    firmscope(['scan', corpus(IMAGE), '-q', '-o', join(dir, 'cross.json'), '--work-dir', join(dir, 'work-cross'), '--cache-dir', join(dir, 'cache-bundle')], false);
    expect(JSON.parse(readFileSync(join(dir, 'cross.json'), 'utf8')).summary.cache.image).toBe('hit');
  }, 120_000);

  it('compiles the modules of scan and unpack from the code caches the build made (V8 accepts them: the same flags)', () => {
    const image = corpus('ssl.key');
    const scan = firmscope(['scan', image, '-q', '-o', join(dir, 'cached.json'), '--no-cache', '--no-vulndb'], true, { FIRMSCOPE_DEBUG: '1' });
    expect(scan.stderr).toContain(`${join(projectRoot, 'dist', 'bundle', 'scan-modules.cjs')}: code cache used`);
    const unpack = firmscope(['unpack', image, '-o', join(dir, 'cached-unpack')], true, { FIRMSCOPE_DEBUG: '1' });
    expect(unpack.stderr).toContain(`${join(projectRoot, 'dist', 'bundle', 'unpack-modules.cjs')}: code cache used`);
  }, 60_000);

  it('unpack: the same files through the bundle and through the modules', () => {
    const listings = [true, false].map((bundle) => {
      const out = join(dir, bundle ? 'unpack-bundle' : 'unpack-modules');
      firmscope(['unpack', corpus(IMAGE), '-o', out], bundle);
      // files.json lists nodes in the order they were finished, which varies between runs either way
      const nodes = JSON.parse(readFileSync(join(out, 'files.json'), 'utf8')) as Array<{ path: string }>;
      return JSON.stringify(nodes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));
    });
    expect(JSON.parse(listings[0]!).length).toBeGreaterThan(500);
    expect(listings[0]).toBe(listings[1]);
  }, 120_000);

  it('has a bundle for every thread module the sources start but the command thread', () => {
    const started = new Set<string>();
    for (const entry of readdirSync(join(projectRoot, 'src'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.ts'))) {
      const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
      for (const m of text.matchAll(/(?:new TaskThread<\w+>|startModuleWorker)\(import\.meta\.url, '([\w-]+)'/g)) started.add(m[1]!);
    }
    expect([...started].sort()).toEqual([...Object.keys(THREAD_MODULES), 'main'].sort());
  });

  it("the service's scan thread: the same result through its bundle and through its module", async () => {
    const runner = await import(pathToFileURL(join(projectRoot, 'dist', 'jobs', 'engine-runner.js')).href) as typeof EngineRunner;
    const results: string[] = [];
    for (const bundle of [true, false]) {
      if (!bundle) vi.stubEnv('FIRMSCOPE_NO_BUNDLE', '1');
      // a database of its own: a thread of its own, started with the setting
      const database = { dataDir: join(dir, `service-${bundle}`) };
      try {
        const result = await runner.runEngineInThread({ imagePath: corpus('busybox-mipsel'), imageName: 'busybox-mipsel', workDir: join(dir, `service-work-${bundle}`), database }, { signal: new AbortController().signal });
        results.push(JSON.stringify(result, (key, value: unknown) => (key === 'durationMs' || key === 'phases' ? undefined : value)));
      } finally {
        await runner.closeScanThreads(database);
      }
    }
    expect((JSON.parse(results[0]!) as { components: unknown[] }).components.length).toBeGreaterThan(0);
    expect(results[0]).toBe(results[1]);
  }, 60_000);
});

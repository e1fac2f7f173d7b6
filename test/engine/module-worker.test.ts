// Worker threads on TypeScript modules (the tests run from the sources): the thread runs the module bundled with
// the project modules it imports, each module seeing its own file URL, and the bundle is made again only when one
// of those files changed (src/engine/source-thread-bundle.mjs). On compiled modules, the build's bundle when it is
// up to date (that it gives the same scan: test/cli/bundled.test.ts).
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { once } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sourceThreadBundle } from '../../src/engine/source-thread-bundle.mjs';
import { compiledThreadModule, startModuleWorker } from '../../src/engine/module-worker.js';
import { tempDir } from '../support/temp-dirs.js';

/**
 * An entry module importing a neighbour; the thread posts both modules' URLs and a value of the neighbour's. The
 * files are dated `secondsAgo` in the past: a file changed while a bundle is made leaves no record of it.
 */
function writeModules(dir: string, value: string, secondsAgo = 60): void {
  writeFileSync(join(dir, 'neighbour.ts'), `export const own: string = import.meta.url;\nexport const value = ${JSON.stringify(value)};\n`);
  writeFileSync(join(dir, 'entry.ts'), [
    "import { parentPort } from 'node:worker_threads';",
    "import { own as neighbour, value } from './neighbour.js';",
    'const entry: string = import.meta.url;',
    'parentPort!.postMessage({ entry, neighbour, value });',
    '',
  ].join('\n'));
  const time = new Date(Date.now() - secondsAgo * 1000);
  for (const name of ['neighbour.ts', 'entry.ts']) utimesSync(join(dir, name), time, time);
}

describe('worker threads on TypeScript modules', () => {
  it('runs the module beside a .ts caller, every module with its own file URL', async () => {
    const dir = tempDir('module-worker');
    writeModules(dir, 'first');
    const worker = startModuleWorker(pathToFileURL(join(dir, 'caller.ts')).href, 'entry');
    // both listened for at once: a thread that exits while its message is still queued delivers it and then
    // emits 'exit' in the same turn, before an 'exit' listener added after the message's await would be there
    const [[message]] = await Promise.all([once(worker, 'message'), once(worker, 'exit')]);
    expect(message).toEqual({ entry: pathToFileURL(join(dir, 'entry.ts')).href, neighbour: pathToFileURL(join(dir, 'neighbour.ts')).href, value: 'first' });
  });

  it('reuses the bundle while its files are unchanged and makes it again when one changes', async () => {
    const dir = tempDir('module-worker');
    const cache = join(dir, 'cache');
    writeModules(dir, 'first');
    const entry = join(dir, 'entry.ts');
    const first = await sourceThreadBundle(entry, cache);
    expect(readFileSync(first, 'utf8')).toContain('"first"');
    const written = statSync(first).mtimeMs;
    expect(await sourceThreadBundle(entry, cache)).toBe(first);
    expect(statSync(first).mtimeMs).toBe(written);

    // The files change (another time): a new bundle with the new value.
    writeModules(dir, 'second', 30);
    const second = await sourceThreadBundle(entry, cache);
    expect(second).not.toBe(first);
    expect(readFileSync(second, 'utf8')).toContain('"second"');
    const rewritten = statSync(second).mtimeMs;
    expect(await sourceThreadBundle(entry, cache)).toBe(second);
    expect(statSync(second).mtimeMs).toBe(rewritten);
  });
});

describe('the module a compiled thread runs', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('is the bundle when at least as new as the module, the module otherwise or under FIRMSCOPE_NO_BUNDLE=1', () => {
    const dir = tempDir('module-worker');
    mkdirSync(join(dir, 'jobs'));
    mkdirSync(join(dir, 'threads'));
    const module = pathToFileURL(join(dir, 'jobs', 'scan-thread.js'));
    const bundleDir = pathToFileURL(join(dir, 'threads') + '/');
    const at = (path: string, seconds: number) => {
      writeFileSync(path, '');
      utimesSync(path, seconds, seconds);
    };
    at(join(dir, 'jobs', 'scan-thread.js'), 2_000_000_000);
    expect(compiledThreadModule(module, 'scan-thread', bundleDir)).toBe(module); // no bundle
    at(join(dir, 'threads', 'scan-thread.js'), 1_999_999_999);
    expect(compiledThreadModule(module, 'scan-thread', bundleDir)).toBe(module); // older: a later tsc changed the module
    at(join(dir, 'threads', 'scan-thread.js'), 2_000_000_000);
    expect(compiledThreadModule(module, 'scan-thread', bundleDir).href).toBe(pathToFileURL(join(dir, 'threads', 'scan-thread.js')).href);
    vi.stubEnv('FIRMSCOPE_NO_BUNDLE', '1');
    expect(compiledThreadModule(module, 'scan-thread', bundleDir)).toBe(module);
  });
});

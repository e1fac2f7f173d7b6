// A worker thread's TypeScript module as one ES module, for threads started while the project runs from its sources
// (the tests): module-worker.ts imports this file in the new thread, which then imports the bundle. Plain JavaScript,
// since that thread has no TypeScript loader; the compiled service never loads it.
//
// Why: a new thread does not inherit tsx's loader, and registering it again in every thread made each scan thread
// and task thread resolve, transform and link its project modules (364 for the scan thread) one by one through the
// loader's own thread: a scan thread's first scan of a small image took 2.7-3.1 s of CPU that way and 0.76-0.79 s
// from the bundle, and in a run of the suite 190 of the 310 s its threads were busy went to loading modules (CPU
// profiles, 2026-12-02).
//
// The bundle is built with esbuild (packages stay imports, resolved from the project's node_modules since the bundle
// lives below it) and kept in node_modules/.cache/firmscope-source-threads, with the modification times of the files
// it was made from: it is reused while none of them changed. Every `import.meta.url` of a bundled module is replaced
// by that module's own file URL, so a module finds its tables, rules and neighbouring thread modules as it does when
// loaded on its own.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE_DIR = join(root, 'node_modules', '.cache', 'firmscope-source-threads');

/** Project modules stay in the bundle; packages and Node's modules are imported. */
const sourceModules = {
  name: 'firmscope-source-modules',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true }));
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const contents = source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      return { contents, loader: 'ts' };
    });
  },
};

/** True when every file the bundle was made from still has the modification time it had then. */
function unchanged(inputs) {
  try {
    return Object.entries(inputs).every(([path, mtimeMs]) => statSync(path).mtimeMs === mtimeMs);
  } catch {
    return false;
  }
}

/** Writes `text` to `path` through a temporary file, so that a thread of another process never reads half of it. */
function writeWhole(path, text) {
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

/**
 * The bundle of the TypeScript module at `entry` (a path), built when missing or older than its sources, in
 * `cacheDir` (below the project's node_modules, from where the bundle's packages resolve). Bundles
 * are named by their content, and `<entry key>.json` names the entry's with the files it was made from: processes
 * building at once each write whole files, and the record that wins names its own bundle.
 */
export async function sourceThreadBundle(entry, cacheDir = CACHE_DIR) {
  const key = createHash('sha256').update(entry).digest('hex').slice(0, 16);
  const recordFile = join(cacheDir, `${key}.json`);
  try {
    const record = JSON.parse(readFileSync(recordFile, 'utf8'));
    if (unchanged(record.inputs)) return join(cacheDir, record.bundle);
  } catch {
    // no bundle yet
  }
  const { build } = await import('esbuild');
  const started = Date.now();
  const result = await build({
    entryPoints: [entry], bundle: true, write: false, metafile: true, format: 'esm', platform: 'node', target: 'node20',
    plugins: [sourceModules], logLevel: 'silent', absWorkingDir: root,
  });
  const text = result.outputFiles[0].text;
  const bundle = `${createHash('sha256').update(text).digest('hex').slice(0, 16)}.mjs`;
  mkdirSync(cacheDir, { recursive: true });
  writeWhole(join(cacheDir, bundle), text);
  const inputs = Object.fromEntries(Object.keys(result.metafile.inputs).map((path) => resolve(root, path)).map((path) => [path, statSync(path).mtimeMs]));
  // (a file changed while it was read: no record, the next thread builds again)
  if (Object.values(inputs).every((mtimeMs) => mtimeMs < started)) writeWhole(recordFile, JSON.stringify({ entry, bundle, inputs }));
  removeOldBundles(cacheDir);
  return join(cacheDir, bundle);
}

/**
 * Removes the records of entries that no longer exist (a test's temporary module) and the bundles no record names,
 * when older than an hour (a thread may still be importing a bundle just replaced).
 */
function removeOldBundles(cacheDir) {
  const old = (path) => Date.now() - statSync(path).mtimeMs > 3_600_000;
  const named = new Set();
  const names = readdirSync(cacheDir);
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    try {
      const record = JSON.parse(readFileSync(join(cacheDir, name), 'utf8'));
      if (existsSync(record.entry) || !old(join(cacheDir, name))) named.add(record.bundle);
      else unlinkSync(join(cacheDir, name));
    } catch {
      // being replaced, or removed by another process
    }
  }
  for (const name of names.filter((n) => n.endsWith('.mjs') && !named.has(n))) {
    try {
      if (old(join(cacheDir, name))) unlinkSync(join(cacheDir, name));
    } catch {
      // removed by another process
    }
  }
}

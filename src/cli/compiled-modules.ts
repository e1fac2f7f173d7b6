// The project modules an offline command imports on use (the engine, the analysis cache's store, the reports) as
// one CommonJS file per command, dist/bundle/<command>-modules.cjs, compiled from V8's code cache of it
// (<file>.v8cache), both made by `npm run build` (scripts/bundle-commands.mjs). Why: Node 20 keeps no compiled
// code for ES modules, so every scan compiled the engine's bundle again: its import took 143-215 ms; from the
// cache, loading the file takes 15-23 ms and the engine's top level 52-80 ms (2026-11-30). The command's own
// bundle (dist/bundle/<command>.js) stays an ES module and imports these modules through bundledModule(), so that
// each exists once in the process.
//
// The cache is used when it is at least as new as the file (the build writes it after the file); V8 itself
// rejects one made by another V8 or with other flags, and the file is then compiled as if there were none.
import { isAscii } from 'node:buffer';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

/** A modules file's exports: each module's namespace, loaded (its top level run) on the first call. */
type ModuleLoaders = Record<string, () => unknown>;

const BUNDLE_DIR = new URL('../bundle/', import.meta.url);
const CACHE_SUFFIX = '.v8cache';
const loaded = new Map<string, { script: vm.Script; modules: ModuleLoaders }>();

/** The namespace of `name` (its path below dist/, as `engine/scan.js`) from `file` in `dir` (dist/bundle). */
export function bundledModule(file: string, name: string, dir: URL = BUNDLE_DIR): unknown {
  const load = modulesOf(fileURLToPath(new URL(file, dir))).modules[name];
  if (!load) throw new Error(`${file} does not hold ${name}: run \`npm run build\``);
  return load();
}

/**
 * Writes the code cache of a modules file (the build, after making it): every module is loaded first, so that the
 * cache holds what their top levels compile as well as the file's own top level.
 */
export function writeCodeCache(path: string): number {
  const { script, modules } = modulesOf(path, false);
  for (const load of Object.values(modules)) load();
  const data = script.createCachedData();
  writeFileSync(path + CACHE_SUFFIX, data);
  return data.length;
}

function modulesOf(path: string, useCache = true): { script: vm.Script; modules: ModuleLoaders } {
  let entry = loaded.get(path);
  if (entry) return entry;
  const cachedData = useCache ? freshCache(path) : undefined;
  const script = new vm.Script(Module.wrap(sourceOf(path)), {
    filename: path,
    cachedData,
    // the modules' import() of packages kept outside the file (pg, ...) through Node's own loader
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (process.env.FIRMSCOPE_DEBUG) {
    const state = !cachedData ? 'none' : script.cachedDataRejected ? 'rejected by V8' : 'used';
    process.stderr.write(`firmscope: ${path}: code cache ${state}\n`);
  }
  const module = { exports: {} as ModuleLoaders };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(path), module, path, dirname(path));
  entry = { script, modules: module.exports };
  loaded.set(path, entry);
  return entry;
}

/**
 * The file's text. The build's files are ASCII (esbuild escapes the rest; no comments are kept), read as Latin-1:
 * decoding 2.1 MB as UTF-8 took 14-16 ms, as Latin-1 under 2 ms, and V8 keeps such a string in one byte a character.
 */
function sourceOf(path: string): string {
  const bytes = readFileSync(path);
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** The code cache of `path` when it is at least as new as the file. */
function freshCache(path: string): Buffer | undefined {
  try {
    if (statSync(path + CACHE_SUFFIX).mtimeMs < statSync(path).mtimeMs) return undefined;
    return readFileSync(path + CACHE_SUFFIX);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

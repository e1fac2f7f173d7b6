// Bundles the compiled `scan` and `unpack` commands (dist/cli/scan.js, unpack.js), run by `npm run build` after tsc:
// - dist/bundle/<command>.js: the command's module, an ES module;
// - dist/bundle/<command>-modules.cjs: every project module the command imports on use (import(): the engine, the
//   analysis cache's store, the reports) with what they import, as one CommonJS file, and <that>.v8cache, V8's
//   code cache of it. The command's import() of such a module becomes bundledModule() (src/cli/compiled-modules.ts),
//   which compiles the file from its cache; each module's top level still runs only when it is first imported;
// - dist/bundle/threads/<name>.js: the module of each worker thread (the scan thread, the task threads), an ES
//   module (THREAD_MODULES in src/engine/module-worker.ts).
//
// Why: `firmscope scan` loads about 650 of the project's ES modules (the engine's handlers, identifiers, analyzers
// and rules) before it starts, and Node resolves, reads, compiles and links each one on its own: 373-435 ms on this
// machine against 149-181 ms for the same code as one file (2026-11-29). For a small image that is a quarter of the
// scan. Node 20 keeps no compiled code for ES modules (module.enableCompileCache came with Node 22), while a script
// can be compiled from a code cache: the engine's import took 143-215 ms; from the cache, 15-23 ms to load the
// file and 52-80 ms for the engine's top level (2026-11-30).
// The service does not use these bundles; the CLI loads one when it is at least as new as the module it was made
// from, and the module itself otherwise (src/cli/bundled.ts; FIRMSCOPE_NO_BUNDLE=1 forces that).
//
// What stays outside the bundles, so that each exists once per process:
// - packages (node_modules) are imported as they are, but for BUNDLED_PACKAGES;
// - the other modules of dist/cli (command-thread.js keeps the command line that main.js sets; unpack.js and
//   remote/gate.js hold options and gates) are imported from their files; a module in a -modules.cjs file may not
//   import one of them (the build fails), since require() cannot load an ES module in Node 20.
// Every `import.meta.url` of a bundled module is replaced by that module's own file URL, computed from the bundle's:
// the engine finds its tables, rules, worker-thread modules and its digest's folder (engine/engine-digest.ts)
// where the module-by-module build has them, so a scan gives the same result and cache keys either way.
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const outdir = join(dist, 'bundle');
const commands = ['scan', 'unpack'];

/** A path as an import specifier from a bundle in `folder`. */
const fromBundle = (path, folder = outdir) => relative(folder, path).split(sep).join('/');

// Packages bundled all the same: pure JavaScript whose many files cost more to load one by one than their work
// (Kysely, which the analysis cache's store uses: 279 files, 149-185 ms to import here; packageurl-js, 15 files,
// and picomatch, 6, which the engine loads at its start: 19 and 9 ms on their own, 2026-11-30).
const BUNDLED_PACKAGES = ['kysely', 'packageurl-js', 'picomatch'];

const cliDir = join(dist, 'cli') + sep;
const LOADER = join(dist, 'cli', 'compiled-modules.js');
/** A package's name from an import specifier. */
const packageName = (path) => (path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0]);
/** The modules each command imports on use, by their path below dist/ (`engine/scan.js`) -> absolute path. */
const importedOnUse = new Map(commands.map((name) => [name, new Map()]));

/**
 * Packages outside the bundles but for BUNDLED_PACKAGES; `import.meta.url` as the bundled module's own file URL,
 * from `bundleUrl`, the URL of the bundle (an expression) in `folder`.
 */
function sharedSetup(esbuild, bundleUrl, folder = outdir) {
  esbuild.onResolve({ filter: /^[^./]/ }, (args) => (BUNDLED_PACKAGES.includes(packageName(args.path)) ? undefined : { path: args.path, external: true }));
  esbuild.onLoad({ filter: /\.js$/ }, async (args) => {
    const source = await readFile(args.path, 'utf8');
    if (!source.includes('import.meta.url')) return { contents: source, loader: 'js' };
    const own = `new URL(${JSON.stringify(fromBundle(args.path, folder))}, ${bundleUrl}).href`;
    return { contents: source.replaceAll('import.meta.url', own), loader: 'js' };
  });
}

/** The commands' ES modules: dist/cli modules stay outside; what a command imports on use comes from its -modules.cjs. */
const commandModules = {
  name: 'firmscope-command-modules',
  setup(esbuild) {
    // (the entry points are absolute paths: only the imports between modules are relative)
    esbuild.onResolve({ filter: /^\.\.?\// }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      const command = commands.find((name) => args.importer === join(dist, 'cli', `${name}.js`));
      if (args.kind === 'dynamic-import' && command && !path.startsWith(cliDir)) {
        const name = relative(dist, path).split(sep).join('/');
        importedOnUse.get(command).set(name, path);
        return { path: name, namespace: 'on-use', pluginData: { command } };
      }
      if (path.startsWith(cliDir) && path !== LOADER) return { path: fromBundle(path), external: true };
      return undefined;
    });
    // CommonJS: the command's `const { scan } = await import(...)` gets the module's namespace as the file gives it
    esbuild.onLoad({ filter: /.*/, namespace: 'on-use' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(LOADER)}).bundledModule(${JSON.stringify(`${args.pluginData.command}-modules.cjs`)}, ${JSON.stringify(args.path)});`,
      loader: 'js',
      resolveDir: dist,
    }));
    sharedSetup(esbuild, 'import.meta.url');
  },
};

/** A -modules.cjs file: its entry maps each module's name to a function that requires it. */
const onUseModules = {
  name: 'firmscope-on-use-modules',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^on-use:/ }, (args) => ({ path: args.path.slice('on-use:'.length), namespace: 'on-use-entry' }));
    esbuild.onLoad({ filter: /.*/, namespace: 'on-use-entry' }, (args) => {
      const lines = [...importedOnUse.get(args.path)].map(([name, path]) => `  ${JSON.stringify(name)}: () => require(${JSON.stringify(path)}),`);
      return { contents: `module.exports = {\n${lines.join('\n')}\n};\n`, loader: 'js', resolveDir: dist };
    });
    esbuild.onResolve({ filter: /^\.\.?\// }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      if (path.startsWith(cliDir)) throw new Error(`${args.importer} imports ${path}: a module of dist/cli cannot be in a -modules.cjs file`);
      return undefined;
    });
    sharedSetup(esbuild, '__bundleUrl');
  },
};

await rm(outdir, { recursive: true, force: true }); // nothing of an earlier build stays
await build({
  entryPoints: commands.map((name) => ({ in: join(dist, 'cli', `${name}.js`), out: name })),
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // one file per command: a chunk of its own would give an import() of a CommonJS module only a default export
  plugins: [commandModules],
  logLevel: 'warning',
});
for (const name of commands) {
  await build({
    entryPoints: [{ in: `on-use:${name}`, out: `${name}-modules` }],
    outdir,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    plugins: [onUseModules],
    // without comments (and so ASCII: compiled-modules.ts reads it as Latin-1) and a third smaller
    minifyWhitespace: true,
    // (at the file's top, where `require` is still the wrapper's: a module may name its own)
    banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
    logLevel: 'warning',
  });
}

// The worker threads' modules as one ES module each (dist/bundle/threads/<name>.js, the list in
// src/engine/module-worker.ts), which startModuleWorker starts instead of the module when at least as new: a service
// scan thread's first scan of a small image took 462-550 ms and 0.64-0.74 s of CPU from its bundle against 798-822 ms
// and 1.10-1.18 s module by module (2026-12-02, quiet machine), paid by the service after its start and after every
// failed scan, and by every offline scan's task threads.
const { THREAD_MODULES } = await import(pathToFileURL(join(dist, 'engine', 'module-worker.js')).href);
const threadDir = join(outdir, 'threads');
for (const [name, module] of Object.entries(THREAD_MODULES)) {
  await build({
    entryPoints: [join(dist, module)],
    outfile: join(threadDir, `${name}.js`),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    plugins: [{ name: 'firmscope-thread-modules', setup: (esbuild) => sharedSetup(esbuild, 'import.meta.url', threadDir) }],
    logLevel: 'warning',
  });
}

// The code caches, made with the V8 flags the offline commands run with (src/cli/tiering.ts): V8 rejects a cache
// made with other flags.
const { delayOptimization } = await import(pathToFileURL(join(dist, 'cli', 'tiering.js')).href);
const { writeCodeCache } = await import(pathToFileURL(LOADER).href);
delayOptimization([]);
for (const name of commands) writeCodeCache(join(outdir, `${name}-modules.cjs`));

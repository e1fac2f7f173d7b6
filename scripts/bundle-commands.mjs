// Bundles the compiled `scan` and `unpack` commands (dist/cli/scan.js, unpack.js) with the project modules they load
// into one file each, dist/bundle/scan.js and unpack.js, run by `npm run build` after tsc.
//
// Why: `firmscope scan` loads about 650 of the project's ES modules (the engine's handlers, identifiers, analyzers
// and rules) before it starts, and Node resolves, reads, compiles and links each one on its own: 373-435 ms on this
// machine against 149-181 ms for the same code as one file (2026-11-29). For a small image that is a quarter of the
// scan. The service does not use these bundles; the CLI loads one when it is at least as new as the module it was
// made from, and the module itself otherwise (src/cli/bundled.ts; FIRMSCOPE_NO_BUNDLE=1 forces that). Modules the
// command imports with import() stay apart (splitting), so what they load is still loaded only on use.
//
// What stays outside the bundle, so that each exists once per process:
// - packages (node_modules) are imported as they are, but for BUNDLED_PACKAGES;
// - the other modules of dist/cli (command-thread.js keeps the command line that main.js sets; unpack.js and
//   remote/gate.js hold options and gates) are imported from their files.
// Every `import.meta.url` of a bundled module is replaced by that module's own file URL, computed from the bundle's:
// the engine finds its tables, rules, worker-thread modules and its digest's folder (engine/analysis-cache.ts)
// where the module-by-module build has them, so a scan gives the same result and cache keys either way.
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const outdir = join(dist, 'bundle');
const commands = ['scan', 'unpack'];

/** A path as an import specifier from the bundle's folder. */
const fromBundle = (path) => relative(outdir, path).split(sep).join('/');

// Packages bundled all the same: pure JavaScript whose many files cost more to load one by one than their work
// (Kysely, which the analysis cache's store uses: 279 files, 149-185 ms to import here; packageurl-js, 15 files,
// and picomatch, 6, which the engine loads at its start: 19 and 9 ms on their own, 2026-11-30).
const BUNDLED_PACKAGES = ['kysely', 'packageurl-js', 'picomatch'];

const keepOutside = {
  name: 'firmscope-keep-outside',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^[^./]/ }, (args) => {
      const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
      return BUNDLED_PACKAGES.includes(name) ? undefined : { path: args.path, external: true };
    });
    // (the entry points are absolute paths: only the imports between modules are relative)
    esbuild.onResolve({ filter: /^\.\.?\// }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      if (path.startsWith(join(dist, 'cli') + sep)) return { path: fromBundle(path), external: true };
      return undefined;
    });
    esbuild.onLoad({ filter: /\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'js' };
      const own = `new URL(${JSON.stringify(fromBundle(args.path))}, import.meta.url).href`;
      return { contents: source.replaceAll('import.meta.url', own), loader: 'js' };
    });
  },
};

await rm(outdir, { recursive: true, force: true }); // chunk names change with their content
await build({
  entryPoints: commands.map((name) => ({ in: join(dist, 'cli', `${name}.js`), out: name })),
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  splitting: true,
  plugins: [keepOutside],
  logLevel: 'warning',
});

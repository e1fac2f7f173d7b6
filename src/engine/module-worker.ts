// Starts a worker thread on a module that sits beside the caller: the compiled `.js` file, or its bundle with the
// project modules it imports (dist/bundle/threads/<name>.js, made by scripts/bundle-commands.mjs) when that is at
// least as new; or, when the caller itself runs as TypeScript source (the tests), the `.ts` module bundled likewise
// on first use (source-thread-bundle.mjs: a new thread does not inherit tsx's loader, and loading the scan thread's
// 364 modules through it again made its first scan cost 2.7-3.1 s of CPU against 0.76-0.79 s).
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { upToDateBundle } from './up-to-date-bundle.js';

/** `callerUrl`: the caller's import.meta.url; `name`: the module's file name without extension, beside the caller. */
export function startModuleWorker(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  const source = callerUrl.endsWith('.ts');
  const url = new URL(`./${name}.${source ? 'ts' : 'js'}`, callerUrl);
  return source ? new Worker(sourceBootstrap(url), { ...options, eval: true }) : new Worker(compiledThreadModule(url, name), options);
}

/**
 * The modules worker threads run, by startModuleWorker's name, with their path below the compiled folder: the build
 * bundles each into dist/bundle/threads/<name>.js. The command thread (cli/main.js) is not one: it loads the command
 * bundles itself.
 */
export const THREAD_MODULES = {
  'scan-thread': 'jobs/scan-thread.js',
  'rule-scan-thread': 'engine/malware/rule-scan-thread.js',
  'lzma-stream-thread': 'engine/unpack/compression/lzma-stream-thread.js',
  'crypto-facts-thread': 'engine/crypto/crypto-facts-thread.js',
} as const;

/** The compiled module `url`'s bundle in `bundleDir` when it is up to date (up-to-date-bundle.ts), else the module. */
export function compiledThreadModule(url: URL, name: string, bundleDir = new URL('../bundle/threads/', import.meta.url)): URL {
  return upToDateBundle(new URL(`${name}.js`, bundleDir), url) ?? url;
}

/** Worker code that bundles the TypeScript module (or finds its bundle up to date), then imports it (tests only). */
function sourceBootstrap(url: URL): string {
  const bundler = new URL('./source-thread-bundle.mjs', import.meta.url).href;
  return `(async () => {
    const { sourceThreadBundle } = await import(${JSON.stringify(bundler)});
    const { pathToFileURL } = await import('node:url');
    await import(pathToFileURL(await sourceThreadBundle(${JSON.stringify(fileURLToPath(url))})).href);
  })()`;
}

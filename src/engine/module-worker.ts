// Starts a worker thread on a module that sits beside the caller: the compiled `.js` file, or, when the caller
// itself runs as TypeScript source (the tests), the `.ts` module bundled with the project modules it imports
// (source-thread-bundle.mjs: a new thread does not inherit tsx's loader, and loading ~400 modules through
// it again cost each thread 1.3-1.7 s of CPU).
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** `callerUrl`: the caller's import.meta.url; `name`: the module's file name without extension, beside the caller. */
export function startModuleWorker(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  const source = callerUrl.endsWith('.ts');
  const url = new URL(`./${name}.${source ? 'ts' : 'js'}`, callerUrl);
  return source ? new Worker(sourceBootstrap(url), { ...options, eval: true }) : new Worker(url, options);
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

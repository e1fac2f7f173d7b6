// Starts a worker thread on a module that sits beside the caller: the compiled `.js` file, or, when the caller
// itself runs as TypeScript source (the tests), the `.ts` file through tsx's loader, which a new thread does not
// inherit.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** `callerUrl`: the caller's import.meta.url; `name`: the module's file name without extension, beside the caller. */
export function startModuleWorker(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  const source = callerUrl.endsWith('.ts');
  const url = new URL(`./${name}.${source ? 'ts' : 'js'}`, callerUrl);
  return source ? new Worker(tsxBootstrap(url), { ...options, eval: true }) : new Worker(url, options);
}

/** Worker code that registers tsx's loader, then imports the TypeScript module (tests only). */
function tsxBootstrap(url: URL): string {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  return `(async () => { const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(url.href)}); })()`;
}

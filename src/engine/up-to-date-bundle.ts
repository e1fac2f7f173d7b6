// Whether a bundle the build made (dist/bundle/, scripts/bundle-commands.mjs) may stand in for the compiled module it
// was made from: the offline commands' bundles (cli/bundled.ts) and the worker threads' (module-worker.ts).
import { statSync } from 'node:fs';

/**
 * `bundle` when it exists and is at least as new as `module` (so that a later `tsc` alone never leaves an old bundle
 * in use), else undefined; always undefined under FIRMSCOPE_NO_BUNDLE=1.
 */
export function upToDateBundle(bundle: URL, module: URL): URL | undefined {
  if (process.env.FIRMSCOPE_NO_BUNDLE === '1') return undefined;
  try {
    return statSync(bundle).mtimeMs >= statSync(module).mtimeMs ? bundle : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

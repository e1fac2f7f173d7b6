// The offline commands as one file each (dist/bundle/, made by scripts/bundle-commands.mjs after tsc): the
// engine's ~650 modules load in less than half the time from a few files. Used when the bundle is at least as new
// as the command's own compiled module (so a later `tsc` alone never leaves an old bundle in use); the module
// itself otherwise: running from the sources, a build without the bundle step, or FIRMSCOPE_NO_BUNDLE=1. The
// modules a command imports on use come from its -modules.cjs file, compiled from V8's code cache (compiled-modules.ts).
import { upToDateBundle } from '../engine/up-to-date-bundle.js';

export type BundledCommand = 'scan' | 'unpack';

/** The bundle to load for `name`, or undefined for the command's own module. `cliDir`: the folder of main.js. */
export function bundleOf(name: BundledCommand, cliDir: URL = new URL('./', import.meta.url)): URL | undefined {
  return upToDateBundle(new URL(`../bundle/${name}.js`, cliDir), new URL(`./${name}.js`, cliDir));
}

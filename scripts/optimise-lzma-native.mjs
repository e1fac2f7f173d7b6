// Rebuilds lzma-native's bundled liblzma with optimisation (run by `npm install`/`npm ci` from prepare.mjs, beside the build).
//
// Why: lzma-native's build script configures liblzma with CFLAGS="-fPIC $CFLAGS", which replaces autoconf's
// default "-g -O2"; its prebuilt binaries are therefore unoptimised and decode xz/LZMA about 2x slower than the
// same liblzma built with -O2 (measured: 1.78 s against 0.86 s CPU for a 59 MB tar.xz). xz and LZMA decoding is
// most of the CPU of unpacking a router or UEFI image, so the build is worth its time once per install.
//
// Best effort: without a C compiler, or on any failure, the prebuilt binary stays in use (slower, same results)
// and a notice says so. FIRMSCOPE_SKIP_LZMA_REBUILD=1 skips the rebuild.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const CFLAGS = '-O2';
const require = createRequire(import.meta.url);

function packageDir() {
  try {
    return dirname(require.resolve('lzma-native/package.json'));
  } catch {
    return undefined;
  }
}

function loads(dir) {
  const probe = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(dir)}).versionString()`], { stdio: 'ignore' });
  return probe.status === 0;
}

function main() {
  if (process.env.FIRMSCOPE_SKIP_LZMA_REBUILD === '1') return;
  const dir = packageDir();
  if (!dir) return; // not installed (e.g. a production install without it): nothing to do
  const marker = join(dir, 'build', 'firmscope-optimised.json');
  const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  const wanted = JSON.stringify({ version, cflags: CFLAGS });
  if (existsSync(marker) && readFileSync(marker, 'utf8') === wanted && loads(dir)) return;

  console.log(`firmscope: building lzma-native ${version} with ${CFLAGS} (its prebuilt liblzma is unoptimised): half a minute on a quiet 2-core machine, several minutes on a busy one`);
  const npm = process.env.npm_execpath;
  const command = npm ? process.execPath : 'npm';
  const args = [...(npm ? [npm] : []), 'rebuild', 'lzma-native', '--foreground-scripts=false'];
  const build = spawnSync(command, args, {
    cwd: process.cwd(),
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, CFLAGS, npm_config_build_from_source: 'true' },
    encoding: 'utf8',
  });
  if (build.status === 0 && existsSync(join(dir, 'build', 'Release', 'lzma_native.node')) && loads(dir)) {
    writeFileSync(marker, wanted);
    return;
  }
  // A failed or unloadable build must not shadow the working prebuilt binary (build/ is searched first).
  rmSync(join(dir, 'build'), { recursive: true, force: true });
  const reason = (build.stderr || build.error?.message || `exit ${build.status}`).trim().split('\n').slice(-3).join(' | ');
  console.warn(`firmscope: notice: lzma-native could not be rebuilt (${reason}); using its prebuilt binary, which decodes about 2x slower`);
}

main();

// What a test needs from outside the project (a Debian command, a system file, a file of ../shared), declared in
// one place. Each need answers whether the tests may run. When something is missing, outside CI the tests are
// skipped with a visible NOTICE; under CI (CI=true) the declaration throws, so the run fails and names what is
// missing and where it comes from (the Debian package in .ci/apt-packages, or ../shared beside the clone), the
// way FIRMSCOPE_REQUIRE_POSTGRES makes the PostgreSQL suites fail.
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The Debian package (listed in .ci/apt-packages) that installs each command a test declares. */
export const DEBIAN_PACKAGES: Readonly<Record<string, string>> = {
  '7z': 'p7zip-full',
  'aarch64-linux-gnu-gcc': 'gcc-aarch64-linux-gnu',
  'aarch64-linux-gnu-objdump': 'gcc-aarch64-linux-gnu',
  'arm-linux-gnueabihf-gcc': 'gcc-arm-linux-gnueabihf',
  'arm-linux-gnueabihf-objdump': 'gcc-arm-linux-gnueabihf',
  cbfstool: 'coreboot-utils',
  chromium: 'chromium',
  clang: 'clang',
  dpkg: 'dpkg',
  gcc: 'gcc',
  genisoimage: 'genisoimage',
  genromfs: 'genromfs',
  'ld.lld': 'lld',
  'lld-link': 'lld',
  'llvm-dlltool': 'llvm',
  'llvm-pdbutil': 'llvm',
  'llvm-readobj': 'llvm',
  lzop: 'lzop',
  mcs: 'mono-mcs',
  mcopy: 'mtools',
  'mipsel-linux-gnu-gcc': 'gcc-mipsel-linux-gnu',
  'mipsel-linux-gnu-objdump': 'gcc-mipsel-linux-gnu',
  mke2fs: 'e2fsprogs',
  'mkfs.cramfs': 'util-linux',
  'mkfs.fat': 'dosfstools',
  'mkfs.jffs2': 'mtd-utils',
  'mkfs.ubifs': 'mtd-utils',
  mksquashfs: 'squashfs-tools',
  nm: 'binutils',
  objcopy: 'binutils',
  objdump: 'binutils',
  openssl: 'openssl',
  pdfinfo: 'poppler-utils',
  pdftotext: 'poppler-utils',
  pdftoppm: 'poppler-utils',
  pdffonts: 'poppler-utils',
  readelf: 'binutils',
  script: 'bsdutils',
  strip: 'binutils',
  tar: 'tar',
  ubinize: 'mtd-utils',
  xmllint: 'libxml2-utils',
  xorriso: 'xorriso',
};

/** CI=true (or 1): missing requirements fail the run instead of skipping. Read at each call, so tests can set it. */
export function underCI(): boolean {
  return process.env.CI === 'true' || process.env.CI === '1';
}

/**
 * Settles a list of missing things (each described with where it comes from) for `what` (e.g. "the lzop round-trip
 * tests"): true when nothing is missing; else a NOTICE and false, or under CI an error naming all of them.
 */
export function settle(missing: string[], what: string): boolean {
  if (missing.length === 0) return true;
  if (underCI()) throw new Error(`CI=true requires ${what} to run, but ${missing.join('; ')}`);
  console.warn(`NOTICE: ${missing.join('; ')}: ${what} are skipped`);
  return false;
}

/** The Debian package of a command; a command missing from DEBIAN_PACKAGES is a mistake in the test. */
export function debianPackageOf(command: string): string {
  const pkg = DEBIAN_PACKAGES[command];
  if (!pkg) throw new Error(`test/support/requirements.ts: add the Debian package of ${command} to DEBIAN_PACKAGES (and to .ci/apt-packages)`);
  return pkg;
}

/** Whether `command` is an executable on PATH (or in /usr/sbin, /sbin, where Debian puts mkfs.* for root). */
export function commandInstalled(command: string): boolean {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/sbin', '/sbin'];
  return dirs.some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Whether every command is installed, for `what` (plural: "the ext image tests"). */
export function needCommands(commands: string[], what: string): boolean {
  const missing = commands
    .map((command) => ({ command, pkg: debianPackageOf(command) }))
    .filter(({ command }) => !commandInstalled(command))
    .map(({ command, pkg }) => `${command} is not installed (Debian package ${pkg}, .ci/apt-packages)`);
  return settle(missing, what);
}

/** The first of `paths` that exists (a system file installed by Debian package `pkg`), or undefined. */
export function needSystemFile(paths: string[], pkg: string, what: string): string | undefined {
  const found = paths.find((path) => existsSync(path));
  settle(found ? [] : [`${paths.join(' or ')} is absent (Debian package ${pkg}, .ci/apt-packages)`], what);
  return found;
}

/** Whether a file of ../shared (`path`, shown as `shown`) exists. CI copies shared/ beside the clone. */
export function needSharedFile(path: string, shown: string, what: string): boolean {
  return settle(existsSync(path) ? [] : [`${shown} is absent (${path}; CI copies shared/ beside the clone)`], what);
}

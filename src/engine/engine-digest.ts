// The engine digest that starts every analysis cache key (analysis-cache.ts): a hash of the engine's own code (its
// source or compiled folder), its data (the built-in YARA rules and the tables) and the exact versions of the
// libraries it runs on, so that a change of any of them changes every key.
//
// The compiled code's part is computed by the build (scripts/write-code-digest.mjs, after tsc) and kept beside it
// in CODE_DIGEST_FILE: reading and hashing the folder's ~340 files took 45-50 ms of every `firmscope scan` on a
// 2-core machine (2026-11-30), a sixth of a small image's scan. That file is used only when it is at least as new
// as this module's own compiled file, which tsc rewrites on every build, so a later `tsc` alone never leaves an
// old digest in use; otherwise (running from the sources, a build without that step) the folder is hashed here.
// The data folders and the lock file are few files, hashed here every time: rules may be edited without a build.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OWN_FILE = fileURLToPath(import.meta.url);
const ENGINE_DIR = dirname(OWN_FILE);
/** The engine's data outside its folder: built-in YARA rules and lookup tables. */
const DATA_DIRS = [join(ENGINE_DIR, '../../rules'), join(ENGINE_DIR, '../../tables')];
/** The exact versions of the libraries the engine runs on (decoders, YARA-X): an upgrade changes every key too. */
const LOCK_FILE = join(ENGINE_DIR, '../../package-lock.json');
/** The build's digest of the code folder, in that folder: a dot file, which the folder's digest leaves out. */
export const CODE_DIGEST_FILE = '.code-digest';

/** Regular files below `dir`, sorted; source maps and dot files left out. */
function listFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of entries.sort()) {
    if (name.endsWith('.map') || name.startsWith('.')) continue;
    const path = join(dir, name);
    const stats = statSync(path);
    if (stats.isDirectory()) out.push(...listFiles(path));
    else if (stats.isFile()) out.push(path);
  }
  return out;
}

/** Hash of the files below `dir`: each one's path below it and its contents. */
export function folderDigest(dir: string): string {
  const hash = createHash('sha256');
  for (const path of listFiles(dir)) hash.update(`${path.slice(dir.length)}\0`).update(readFileSync(path)).update('\0');
  return hash.digest('hex');
}

/**
 * The digest of the code folder `dir`: the build's (CODE_DIGEST_FILE) when it is at least as new as `sentinel`, a
 * file every build rewrites; computed otherwise.
 */
export function codeDigest(dir: string, sentinel: string): string {
  const file = join(dir, CODE_DIGEST_FILE);
  try {
    if (statSync(file).mtimeMs >= statSync(sentinel).mtimeMs) {
      const digest = readFileSync(file, 'utf8').trim();
      if (/^[0-9a-f]{64}$/.test(digest)) return digest;
    }
  } catch {
    // no digest from the build: computed below
  }
  return folderDigest(dir);
}

/** Writes the code folder's digest for codeDigest (the build's last step on it); returns it. */
export function writeCodeDigest(dir: string = ENGINE_DIR): string {
  const digest = folderDigest(dir);
  writeFileSync(join(dir, CODE_DIGEST_FILE), `${digest}\n`);
  return digest;
}

let engineDigestValue: string | undefined;

/** Hash of the engine's code, of its data folders and of the lock file, computed once per process. */
export function engineDigest(): string {
  if (engineDigestValue) return engineDigestValue;
  const hash = createHash('sha256').update(`code\0${codeDigest(ENGINE_DIR, OWN_FILE)}\0`);
  for (const dir of DATA_DIRS) hash.update(`data\0${folderDigest(dir)}\0`);
  try {
    hash.update(readFileSync(LOCK_FILE));
  } catch {
    // an installed copy without its lock file: the engine's own files still key the cache
  }
  return (engineDigestValue = hash.digest('hex'));
}

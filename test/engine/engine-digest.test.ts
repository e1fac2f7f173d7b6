// The engine digest's code part (src/engine/engine-digest.ts): the build's digest file is used only when it is at
// least as new as a file every build rewrites; otherwise, or when it is not a digest, the folder is hashed.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../support/cli-process.js';
import { CODE_DIGEST_FILE, codeDigest, engineDigest, folderDigest, writeCodeDigest } from '../../src/engine/engine-digest.js';

const root = mkdtempSync(join(tmpdir(), 'firmscope-engine-digest-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let count = 0;
/** A code folder: a module every build rewrites (the sentinel) and one more below. */
function codeFolder(): { dir: string; sentinel: string } {
  const dir = join(root, `code-${count++}`);
  mkdirSync(join(dir, 'unpack'), { recursive: true });
  writeFileSync(join(dir, 'engine-digest.js'), 'export const a = 1;\n');
  writeFileSync(join(dir, 'unpack', 'handler.js'), 'export const b = 2;\n');
  return { dir, sentinel: join(dir, 'engine-digest.js') };
}

/** Sets a file's modification time, in seconds from now. */
const touch = (path: string, secondsFromNow: number) => {
  const at = Date.now() / 1000 + secondsFromNow;
  utimesSync(path, at, at);
};

describe('engine digest', () => {
  it('hashes the paths and contents below a folder, leaving out source maps and dot files', () => {
    const { dir } = codeFolder();
    const before = folderDigest(dir);
    writeFileSync(join(dir, 'handler.js.map'), '{}');
    writeFileSync(join(dir, '.hidden'), 'x');
    expect(folderDigest(dir)).toBe(before);
    writeFileSync(join(dir, 'unpack', 'handler.js'), 'export const b = 3;\n');
    expect(folderDigest(dir)).not.toBe(before);
  });

  it("uses the build's digest when it is at least as new as the sentinel, and writes the folder's own", () => {
    const { dir, sentinel } = codeFolder();
    expect(writeCodeDigest(dir)).toBe(folderDigest(dir));
    touch(join(dir, CODE_DIGEST_FILE), 10);
    // a digest file the build wrote is read, not recomputed: one written by hand shows which was used
    writeFileSync(join(dir, CODE_DIGEST_FILE), `${'a'.repeat(64)}\n`);
    touch(join(dir, CODE_DIGEST_FILE), 10);
    expect(codeDigest(dir, sentinel)).toBe('a'.repeat(64));
  });

  it('hashes the folder when the digest is older than the sentinel (tsc ran after it), missing or not a digest', () => {
    const { dir, sentinel } = codeFolder();
    const own = folderDigest(dir);
    expect(codeDigest(dir, sentinel)).toBe(own); // none
    writeFileSync(join(dir, CODE_DIGEST_FILE), `${'b'.repeat(64)}\n`);
    touch(join(dir, CODE_DIGEST_FILE), -10);
    expect(codeDigest(dir, sentinel)).toBe(own); // older
    writeFileSync(join(dir, CODE_DIGEST_FILE), 'not a digest\n');
    touch(join(dir, CODE_DIGEST_FILE), 10);
    expect(codeDigest(dir, sentinel)).toBe(own);
  });

  const built = join(projectRoot, 'dist', 'engine');
  it.runIf(existsSync(join(built, CODE_DIGEST_FILE)))("the build's digest of dist/engine is that folder's (npm run build)", () => {
    expect(readFileSync(join(built, CODE_DIGEST_FILE), 'utf8').trim()).toBe(folderDigest(built));
  });

  it('is one hex SHA-256 per process', () => {
    expect(engineDigest()).toMatch(/^[0-9a-f]{64}$/);
    expect(engineDigest()).toBe(engineDigest());
  });
});

// Temporary folders for tests, removed when the test file that made them ends. The removal is registered in every
// test file by test/support/temp-dirs-cleanup.ts (a setup file of vitest.config.ts): an afterAll at the top of a
// helper module would not do, because test files share their worker's modules (isolate: false) and such a hook
// belongs to the first file that imported the helper only; the folders of every later file were left in the
// system's temporary folder (hundreds after one run).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A fresh folder `<tmpdir>/<prefix>-XXXXXX`, removed after the current test file. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  made.push(dir);
  return dir;
}

/** Removes every folder tempDir made so far (the setup file runs it after each test file). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

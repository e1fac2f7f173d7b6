// Access to ../shared (corpus, vulndata, schemas) for tests. Absent data skips the test with a visible notice;
// it is never copied into the project.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const sharedRoot = process.env.FIRMSCOPE_SHARED_DIR ?? resolve(projectRoot, '..', 'shared');

export function sharedPath(...parts: string[]): string {
  return join(sharedRoot, ...parts);
}

/** True when the shared file exists; otherwise prints why the dependent tests are skipped. */
export function haveShared(...parts: string[]): boolean {
  const path = sharedPath(...parts);
  if (existsSync(path)) return true;
  console.warn(`NOTICE: ${path} is absent; tests that need it are skipped`);
  return false;
}

export const corpus = (name: string): string => sharedPath('corpus', name);

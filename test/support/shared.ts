// Access to ../shared (corpus, vulndata, schemas) for tests. Absent data skips the test with a visible notice, or
// fails the run under CI (requirements.ts); it is never copied into the project.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { needSharedFile } from './requirements.js';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const sharedRoot = process.env.FIRMSCOPE_SHARED_DIR ?? resolve(projectRoot, '..', 'shared');

export function sharedPath(...parts: string[]): string {
  return join(sharedRoot, ...parts);
}

/**
 * True when the shared file exists; otherwise false with a notice naming it, or under CI an error (requirements.ts):
 * the tests that need it must not skip there.
 */
export function haveShared(...parts: string[]): boolean {
  return needSharedFile(sharedPath(...parts), join('../shared', ...parts), 'the tests that need it');
}

export const corpus = (name: string): string => sharedPath('corpus', name);

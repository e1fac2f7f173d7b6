import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/longest-first-sequencer.js';

// Test files that replace modules (vi.mock, vi.doMock) run each in a fresh module registry. Every other file shares
// its worker's modules with the files that ran there before it (isolate: false): importing the engine, the server
// and their dependencies again for each of 273 files took 181 s of the suite's 1,200 s of worker time (vitest's
// "import" figure, 2026-11-29, 2 cores). Those files clean up what they change (spies and stubbed variables
// are restored, servers closed), so the order in which they share a worker does not matter.
const MOCKS_MODULES = /\bvi\.(?:mock|doMock|unmock|doUnmock)\(/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

const isolated = testFiles('test').filter((file) => MOCKS_MODULES.test(readFileSync(file, 'utf8')));

export default defineConfig({
  test: {
    // Two cores: keep parallelism modest so the integration tests keep their timing.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // removes each file's temporary folders when it ends (test/support/temp-dirs.ts)
    setupFiles: ['test/support/temp-dirs-cleanup.ts'],
    // longest files first (test/durations.json when vitest has no timings of its own, as in CI)
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      { extends: true, test: { name: 'isolated', include: isolated, isolate: true } },
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: isolated, isolate: false } },
    ],
  },
});

// Writes test/durations.json, the test files' durations that order the suite (test/longest-first-sequencer.ts), from
// a vitest JSON report:
//   npx vitest run --reporter=json --outputFile=/tmp/vitest.json && node scripts/test-durations.mjs /tmp/vitest.json
// Only files of a second or more are listed; the others run after them in vitest's own order.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const report = process.argv[2];
if (!report) {
  console.error('usage: node scripts/test-durations.mjs VITEST_JSON_REPORT');
  process.exit(1);
}
const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
const seconds = Object.fromEntries(
  testResults
    .map((file) => [relative(root, file.name).split('\\').join('/'), Math.round((file.endTime - file.startTime) / 100) / 10])
    .filter(([, s]) => s >= 1)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)),
);
const out = join(root, 'test', 'durations.json');
writeFileSync(out, `${JSON.stringify({ measured: new Date().toISOString().slice(0, 10), seconds }, null, 2)}\n`);
console.log(`${Object.keys(seconds).length} files of a second or more in ${relative(root, out)}`);

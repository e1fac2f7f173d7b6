// The version signatures' needle search (NeedleSearch, src/engine/inventory/signature.ts) against the combined
// regular expression it replaced, over every file below a folder (e.g. a `firmscope unpack` output), in one process.
//   npx tsx bench/inventory/needle-search.ts DIR [ROUNDS]
// The regex row includes decoding each file as latin1 text, which it needed and the search does not. Both must
// report the same hits (checked); each row is the median of ROUNDS (default 5) passes over all files.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NeedleSearch } from '../../src/engine/inventory/signature.js';
import { signatures } from '../../src/engine/inventory/signatures/index.js';

const [dir, roundsArg] = process.argv.slice(2);
if (!dir) throw new Error('usage: needle-search DIR [ROUNDS]');
const rounds = Math.max(1, Number(roundsArg ?? 5));
const files: Buffer[] = [];
const walk = (folder: string): void => {
  for (const name of readdirSync(folder).sort()) {
    const path = join(folder, name);
    const st = lstatSync(path);
    if (st.isDirectory()) walk(path);
    else if (st.isFile()) files.push(readFileSync(path));
  }
};
walk(dir);

const needles = [...new Set(signatures.flatMap((s) => s.patterns.map((p) => p.needle)))];
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const combined = new RegExp([...needles].sort((a, b) => b.length - a.length).map(escape).join('|'), 'g');
const search = new NeedleSearch(needles);

function byRegex(): string[] {
  const hits: string[] = [];
  for (const data of files) {
    const text = data.toString('latin1');
    combined.lastIndex = 0;
    for (let m = combined.exec(text); m; m = combined.exec(text)) {
      hits.push(`${m.index}:${m[0]}`);
      combined.lastIndex = m.index + 1;
    }
  }
  return hits;
}

function bySearch(): string[] {
  const hits: string[] = [];
  for (const data of files) search.scan(data, (index, needle) => hits.push(`${index}:${needle}`));
  return hits;
}

function timed(run: () => string[]): { ms: number; hits: string[] } {
  const times: number[] = [];
  let hits: string[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    hits = run();
    times.push(performance.now() - t0);
  }
  return { ms: times.sort((a, b) => a - b)[Math.floor(rounds / 2)]!, hits };
}

const bytes = files.reduce((sum, f) => sum + f.length, 0);
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const regex = timed(byRegex);
const literal = timed(bySearch);
if (regex.hits.join('\n') !== literal.hits.join('\n')) throw new Error('the needle search and the regex disagree');
console.log(`${new Date().toISOString()}, load average ${load}: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB, ${needles.length} needles, ${regex.hits.length} hits (identical)`);
console.log(`| combined regex (with latin1 decoding) | ${regex.ms.toFixed(0)} ms | ${((regex.ms / bytes) * 1e6).toFixed(2)} ms/MB |`);
console.log(`| NeedleSearch | ${literal.ms.toFixed(0)} ms | ${((literal.ms / bytes) * 1e6).toFixed(2)} ms/MB |`);

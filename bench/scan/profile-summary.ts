// Summarises a V8 .cpuprofile (node --cpu-prof): self time by function and by source file, largest first.
//   npx tsx bench/scan/profile-summary.ts FILE.cpuprofile [TOP]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary FILE.cpuprofile [TOP]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const short = url.replace(/^.*\/(node_modules|dist|src)\//, '$1/');
  byFunction.set(`${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`, (byFunction.get(`${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`) ?? 0) + us);
  byFile.set(short || functionName, (byFile.get(short || functionName) ?? 0) + us);
}
const top = Number(topArg ?? 30);
const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
};
print('self time by function', byFunction);
print('self time by file', byFile);

// Benchmark: the 'binaries' analyzer's time per 1,000 binaries (ELF/PE parsing, hardening, unsafe-function call
// sites), over a folder of binaries or a corpus image unpacked by the engine first (the unpacking is not timed).
//   npx tsx bench/binaries/run.ts                      (default: /usr/bin)
//   npx tsx bench/binaries/run.ts /usr/lib/x86_64-linux-gnu
//   npx tsx bench/binaries/run.ts ../shared/corpus/trendnet-tew733gr-rootfs.squashfs
// The analyzer runs BENCH_RUNS times (default 3, the first warms the page cache) and the median is reported, in
// wall and CPU time: on a shared machine wall time also measures the other processes.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import type { AnalysisContext } from '../../src/engine/analyzer.js';
import { createBinariesAnalyzer } from '../../src/engine/binaries/binaries.analyzer.js';
import { totalUnsafeUses } from '../../src/engine/binaries/unsafe-functions.js';
import { FileIndex } from '../../src/engine/file-index.js';
import { unpack } from '../../src/engine/unpack/driver.js';
import { benchContext } from '../support.js';

const target = resolve(process.argv[2] ?? '/usr/bin');
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));

function machine(): string {
  const cpu = cpus();
  const gb = (n: number) => (n / 1024 ** 3).toFixed(1);
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}, memory ${gb(freemem())} GB free of ${gb(totalmem())} GB, Node ${process.version}`;
}

async function indexOf(path: string): Promise<{ index: FileIndex; cleanup: () => void }> {
  if (statSync(path).isDirectory()) return { index: await FileIndex.fromDirectory(path), cleanup: () => {} };
  const work = mkdtempSync(join(tmpdir(), 'bench-binaries-'));
  const unpacked = await unpack(path, work, {});
  return { index: new FileIndex(work, unpacked.files), cleanup: () => rmSync(work, { recursive: true, force: true }) };
}

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

console.log(`machine: ${machine()}`);
const { index, cleanup } = await indexOf(target);
const bytes = index.files().reduce((n, f) => n + f.size, 0);
console.log(`input: ${target}: ${index.files().length} files, ${(bytes / 1024 ** 2).toFixed(0)} MiB`);
const results: Array<{ wall: number; cpu: number; ctx: AnalysisContext }> = [];
for (let i = 0; i < runs; i++) {
  const ctx = benchContext(index, target);
  const cpu = process.cpuUsage();
  const start = performance.now();
  await createBinariesAnalyzer().run(ctx);
  results.push({ wall: performance.now() - start, cpu: cpuMs(cpu), ctx });
}
cleanup();
results.sort((a, b) => a.wall - b.wall);
const median = results[Math.floor((results.length - 1) / 2)]!;
const binaries = median.ctx.binaries!;
const decoded = binaries.filter((b) => b.callSitesDecoded).length;
const per1000 = (ms: number) => ((ms * 1000) / Math.max(1, binaries.length) / 1000).toFixed(2);
console.log(`binaries: ${binaries.length} (${decoded} with call sites decoded), ${binaries.filter((b) => b.unsafeFunctions.length).length} using unsafe functions, ${totalUnsafeUses(binaries)} uses; ${median.ctx.findings.length} findings; ${median.ctx.problems.length} problems`);
console.log(`analyzer: median of ${runs} runs ${median.wall.toFixed(0)} ms wall / ${median.cpu.toFixed(0)} ms CPU (runs: ${results.map((r) => r.wall.toFixed(0)).join(', ')} ms)`);
console.log(`per 1,000 binaries: ${per1000(median.wall)} s wall / ${per1000(median.cpu)} s CPU`);
console.log(`after: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

// Benchmark of the whole offline scan (issue #15): `firmscope scan` against `unsquashfs` (the native floor) and
// `binwalk -Me` on the 64 MB xz SquashFS of system files (the unpack bench's image) and on the corpus images.
//   npm run build && npx tsx bench/scan/run.ts
// Environment: BENCH_RUNS (default 3: every command runs that many times, the median wall time is reported),
// BENCH_SKIP_SQUASHFS=1 to skip the 64 MB image, BENCH_CORPUS=0 to skip the corpus images (or BENCH_CORPUS=openwrt: only those whose name contains it), BENCH_DIR (default /tmp/firmscope-bench).
// The scan runs cold (empty analysis cache), warm (the same image again) and on the "next version" (the same tree
// with every tenth file changed), each in a fresh work folder; the scans use data folders of the bench's own (a new
// one for each cold scan), so no vulnerability database is matched and the analysis cache holds only what these
// runs put there.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildSystemSquashfs, fmt, median, mksquashfs, stageSystemFiles, timed, type Timing } from '../system-image.js';

const project = resolve(import.meta.dirname, '..', '..');
const corpusDir = process.env.FIRMSCOPE_SHARED_DIR ? join(process.env.FIRMSCOPE_SHARED_DIR, 'corpus') : resolve(project, '..', 'shared', 'corpus');
const work = process.env.BENCH_DIR ?? '/tmp/firmscope-bench';
const firmscope = join(project, 'bin', 'firmscope.js');
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const outputs = join(work, `scan-out-${process.pid}`);
/**
 * The scans' data folder (no vulnerability database; the analysis cache, `firmscope scan --cache-dir`, inside it).
 * clearCache starts a new one instead of deleting the old: on an ext4 without a journal, deleting thousands of files
 * makes the files created in the next minute slower (each new inode skips the recently deleted ones), which would
 * charge the bench's own cleaning to the scan after it. Everything is deleted once the bench has finished.
 */
let dataCount = 0;
let dataDir = join(outputs, 'data-0');
let cacheDir = join(dataDir, 'analysis-cache');
let outputCount = 0;
const freshOutput = (name: string) => join(outputs, `${outputCount++}-${name}`);

/** The environment of every scan: its own data folder (no vulnerability database, its own analysis cache). */
const scanEnv = () => ({ ...process.env, FIRMSCOPE_DATA_DIR: dataDir, DATABASE_URL: '' });

interface ScanTiming extends Timing {
  phases: Record<string, number>;
  durationMs: number;
  files: number;
}

function scanOnce(image: string, name: string, before?: () => void): ScanTiming {
  before?.();
  const out = freshOutput(name);
  mkdirSync(out, { recursive: true });
  const json = join(out, 'result.json');
  const args = [firmscope, 'scan', image, '-q', '-o', json, '--work-dir', join(out, 'work'), '--cache-dir', cacheDir];
  const r = timed(work, 'node', args, { env: scanEnv() });
  if (!r.ok) throw new Error(`firmscope scan failed on ${image}: ${r.stderr}`);
  const result = JSON.parse(readFileSync(json, 'utf8')) as { stats: { durationMs: number; filesExtracted: number }; summary: { phases: Record<string, number> } };
  return { ...r, phases: result.summary.phases, durationMs: result.stats.durationMs, files: result.stats.filesExtracted };
}

/** A reference tool's timing; a failed run would give a meaningless ratio. */
function succeeded(t: Timing, what: string): Timing {
  if (!t.ok) throw new Error(`${what} failed: ${t.stderr}`);
  return t;
}

function binwalkRun(image: string, name: string): Timing {
  return median(runs, () => {
    const out = freshOutput(name);
    mkdirSync(out, { recursive: true });
    return succeeded(timed(work, 'binwalk', ['-Me', '-q', '--run-as=root', '-C', out, image]), `binwalk on ${image}`);
  });
}

function unsquashfsRun(image: string, name: string): Timing {
  return median(runs, () => succeeded(timed(work, 'unsquashfs', ['-q', '-n', '-d', freshOutput(name), image]), `unsquashfs on ${image}`));
}

/** A new, empty data folder and analysis cache, so the next scan runs cold. */
function clearCache(): void {
  dataDir = join(outputs, `data-${++dataCount}`);
  cacheDir = join(dataDir, 'analysis-cache');
  mkdirSync(dataDir, { recursive: true });
}

/** Regular files below `dir`, sorted. */
function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d).sort()) {
      const path = join(d, entry);
      const st = lstatSync(path);
      if (st.isDirectory()) walk(path);
      else if (st.isFile()) out.push(path);
    }
  };
  walk(dir);
  return out;
}

/**
 * The "next version" of the image: the same tree with every tenth file changed (a line appended, so its hash
 * differs while its kind stays the same), as consecutive firmware releases share most of their files.
 */
function buildNextVersion(inputBytes: number): string {
  const image = join(work, 'system-xz-next.squashfs');
  if (existsSync(image)) return image;
  const staging = join(work, 'squashfs-next-tree');
  stageSystemFiles(staging, inputBytes);
  listFiles(staging).forEach((path, i) => {
    if (i % 10 !== 0) return;
    const content = readFileSync(path);
    unlinkSync(path); // a hard link to the system's file: replace it, never write through it
    writeFileSync(path, Buffer.concat([content, Buffer.from(`\n# next version ${i}\n`)]));
  });
  mksquashfs(staging, image);
  rmSync(staging, { recursive: true, force: true });
  return image;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
const phaseList = (t: ScanTiming) =>
  Object.entries(t.phases)
    .map(([phase, ms]) => `${phase} ${seconds(ms)}`)
    .join(', ');

function squashfsTable(): string[] {
  const { image, inputBytes } = buildSystemSquashfs(work);
  const next = buildNextVersion(inputBytes);
  const unsquashfs = unsquashfsRun(image, 'unsquashfs');
  const binwalk = binwalkRun(image, 'binwalk');
  const cold = median(runs, () => scanOnce(image, 'cold', clearCache));
  // warm: the cache filled by one scan of the image; next: filled by the first version only
  const warm = median(runs, () => scanOnce(image, 'warm'));
  const nextVersion = median(runs, () => {
    clearCache();
    scanOnce(image, 'next-prime');
    return scanOnce(next, 'next');
  });
  const row = (name: string, t: Timing, extra = '') => `| ${name} | ${fmt(t)} | ${mb(t.rssBytes)} | ${extra} |`;
  const ratio = (t: Timing, ref: Timing, label: string) => `${(t.ms / ref.ms).toFixed(2)}× ${label}`;
  return [
    `| on the ${(statSync(image).size / 1e6).toFixed(1)} MB xz SquashFS (${cold.files} files) | wall (cpu) | peak RSS | ratio, phases |`,
    '|---|---:|---:|---|',
    row('unsquashfs (one decompressor per core)', unsquashfs),
    row('binwalk -Me', binwalk),
    row('firmscope scan, cold', cold, `${ratio(cold, unsquashfs, 'unsquashfs')}, ${ratio(cold, binwalk, 'binwalk')}; ${phaseList(cold)}`),
    row('firmscope scan, warm (same image again)', warm, `${ratio(warm, unsquashfs, 'unsquashfs')}; ${phaseList(warm)}`),
    row('firmscope scan, next version (10% of files changed)', nextVersion, `${ratio(nextVersion, cold, 'the cold scan')}; ${phaseList(nextVersion)}`),
  ];
}

function corpusTable(): string[] {
  const rows = ['| corpus image | size | firmscope scan, cold | engine time | binwalk -Me | scan / binwalk |', '|---|---:|---:|---:|---:|---:|'];
  const only = process.env.BENCH_CORPUS && process.env.BENCH_CORPUS !== '1' ? process.env.BENCH_CORPUS : '';
  for (const name of readdirSync(corpusDir).filter((n) => n !== 'README.md' && n.includes(only)).sort()) {
    const image = join(corpusDir, name);
    const scanned = median(runs, () => scanOnce(image, `corpus-${name}`, clearCache));
    const binwalk = binwalkRun(image, `bw-${name}`);
    rows.push(`| ${name} | ${statSync(image).size.toLocaleString('en')} | ${fmt(scanned)} | ${seconds(scanned.durationMs)} | ${fmt(binwalk)} | ${(scanned.ms / binwalk.ms).toFixed(2)}× |`);
    console.error(rows.at(-1));
  }
  return rows;
}

mkdirSync(outputs, { recursive: true });
if (!existsSync(join(project, 'dist', 'cli', 'main.js'))) throw new Error('build first: npm run build');
try {
  const lines = process.env.BENCH_SKIP_SQUASHFS ? [] : squashfsTable();
  console.error(lines.join('\n'));
  if (process.env.BENCH_CORPUS !== '0') lines.push('', ...corpusTable());
  console.log(lines.join('\n'));
} finally {
  rmSync(outputs, { recursive: true, force: true });
}

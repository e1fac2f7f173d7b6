// Benchmark of the whole offline scan (issue #15): `firmscope scan` against `unsquashfs` (the native floor) and
// `binwalk -Me` on the 64 MB xz SquashFS of system files (the unpack bench's image) and on the corpus images.
//   npm run build && npx tsx bench/scan/run.ts
// Environment: BENCH_RUNS (default 3: rounds, in each of which every command runs once; the median wall time is
// reported, and each ratio of the medians and per round),
// BENCH_SKIP_SQUASHFS=1 to skip the 64 MB image, BENCH_CORPUS=0 to skip the corpus images (or BENCH_CORPUS=openwrt: only those whose name contains it), BENCH_DIR (default /tmp/firmscope-bench).
// The scan runs cold (empty analysis cache), warm (the same image again) and on the "next version" (the same tree
// with every tenth file changed), each in a fresh work folder; the scans use data folders of the bench's own (a new
// one for each cold scan), so no vulnerability database is matched and the analysis cache holds only what these
// runs put there. The first lines printed are the machine's state, measured before the runs: the time to create a
// file in BENCH_DIR (fileCreationMicros: the filesystem's state is part of every scan's figure), what a page of fresh
// memory costs (freshPageMicros) and Node's own start (nodeStartLine).
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
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

function binwalkOnce(image: string, name: string): Timing {
  const out = freshOutput(name);
  mkdirSync(out, { recursive: true });
  return succeeded(timed(work, 'binwalk', ['-Me', '-q', '--run-as=root', '-C', out, image]), `binwalk on ${image}`);
}

function unsquashfsOnce(image: string, name: string): Timing {
  return succeeded(timed(work, 'unsquashfs', ['-q', '-n', '-d', freshOutput(name), image]), `unsquashfs on ${image}`);
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
const faults = (t: Timing) => `${(t.minorFaults / 1000).toFixed(0)}k page faults`;
const phaseList = (t: ScanTiming) =>
  Object.entries(t.phases)
    .map(([phase, ms]) => `${phase} ${seconds(ms)}`)
    .join(', ');

/** One round of the 64 MB image's measures, taken one after another so that each ratio compares runs minutes apart at most. */
interface Round {
  unsquashfs: Timing;
  binwalk: Timing;
  cold: ScanTiming;
  warm: ScanTiming;
  next: ScanTiming;
}

/** The run of median wall time among `timings` (system-image.ts median, over runs already made). */
function medianOf<T extends Timing>(timings: readonly T[]): T {
  let i = 0;
  return median(timings.length, () => timings[i++]!);
}

/**
 * The rounds run in turn (each: the references, then the scans), not each command `runs` times in a row: this
 * machine's speed moved by up to 1.7x within minutes (2026-11-30: `unsquashfs` 2.39-4.09 s on the same image), and
 * a ratio of medians taken minutes apart moved with it. Each ratio is given of the medians and per round.
 */
function squashfsTable(): string[] {
  const { image, inputBytes } = buildSystemSquashfs(work);
  const next = buildNextVersion(inputBytes);
  const rounds: Round[] = [];
  for (let i = 0; i < runs; i++) {
    const unsquashfs = unsquashfsOnce(image, 'unsquashfs');
    const binwalk = binwalkOnce(image, 'binwalk');
    const cold = scanOnce(image, 'cold', clearCache);
    // warm: the cache filled by this round's cold scan; next: filled by one scan of the first version only
    const warm = scanOnce(image, 'warm');
    clearCache();
    scanOnce(image, 'next-prime');
    rounds.push({ unsquashfs, binwalk, cold, warm, next: scanOnce(next, 'next') });
  }
  const unsquashfs = medianOf(rounds.map((r) => r.unsquashfs));
  const binwalk = medianOf(rounds.map((r) => r.binwalk));
  const cold = medianOf(rounds.map((r) => r.cold));
  const warm = medianOf(rounds.map((r) => r.warm));
  const nextVersion = medianOf(rounds.map((r) => r.next));
  const row = (name: string, t: Timing, extra = '') => `| ${name} | ${fmt(t)} | ${mb(t.rssBytes)}, ${faults(t)} | ${extra} |`;
  /** The ratio of the medians, then the median of the rounds' own ratios and each of them. */
  const ratio = (of: keyof Round, to: keyof Round, label: string) => {
    const each = rounds.map((r) => r[of].ms / r[to].ms);
    const sorted = [...each].sort((a, b) => a - b);
    const mid = sorted[Math.floor((sorted.length - 1) / 2)]!;
    const medians = { unsquashfs, binwalk, cold, warm, next: nextVersion };
    return `${(medians[of].ms / medians[to].ms).toFixed(2)}× ${label} (per round: median ${mid.toFixed(2)}×; ${each.map((x) => x.toFixed(2)).join(', ')})`;
  };
  return [
    `| on the ${(statSync(image).size / 1e6).toFixed(1)} MB xz SquashFS (${cold.files} files) | wall (cpu) | peak RSS, page faults | ratio, phases |`,
    '|---|---:|---:|---|',
    row('unsquashfs (one decompressor per core)', unsquashfs, `per round: ${rounds.map((r) => seconds(r.unsquashfs.ms)).join(', ')}`),
    row('binwalk -Me', binwalk),
    row('firmscope scan, cold', cold, `${ratio('cold', 'unsquashfs', 'unsquashfs')}, ${ratio('cold', 'binwalk', 'binwalk')}; ${phaseList(cold)}`),
    row('firmscope scan, warm (same image again)', warm, `${ratio('warm', 'unsquashfs', 'unsquashfs')}; ${phaseList(warm)}`),
    row('firmscope scan, next version (10% of files changed)', nextVersion, `${ratio('next', 'cold', 'the cold scan')}; ${phaseList(nextVersion)}`),
  ];
}

function corpusTable(): string[] {
  const rows = ['| corpus image | size | firmscope scan, cold | engine time | binwalk -Me | scan / binwalk |', '|---|---:|---:|---:|---:|---:|'];
  const only = process.env.BENCH_CORPUS && process.env.BENCH_CORPUS !== '1' ? process.env.BENCH_CORPUS : '';
  for (const name of readdirSync(corpusDir).filter((n) => n !== 'README.md' && n.includes(only)).sort()) {
    const image = join(corpusDir, name);
    // in rounds, as the 64 MB image's measures (squashfsTable)
    const rounds = Array.from({ length: runs }, () => ({ scanned: scanOnce(image, `corpus-${name}`, clearCache), binwalk: binwalkOnce(image, `bw-${name}`) }));
    const scanned = medianOf(rounds.map((r) => r.scanned));
    const binwalk = medianOf(rounds.map((r) => r.binwalk));
    const each = rounds.map((r) => (r.scanned.ms / r.binwalk.ms).toFixed(2));
    rows.push(`| ${name} | ${statSync(image).size.toLocaleString('en')} | ${fmt(scanned)}, ${faults(scanned)} | ${seconds(scanned.durationMs)} | ${fmt(binwalk)} | ${(scanned.ms / binwalk.ms).toFixed(2)}× (per round ${each.join(', ')}) |`);
    console.error(rows.at(-1));
  }
  return rows;
}

/**
 * Microseconds per 4 KiB page of memory touched for the first time: 64 MiB, fresh from the kernel (a buffer that
 * size is mapped anew, not taken from the heap), one write per page; the median of three. A process pays it once
 * per page of its peak memory, and the kernel's time for it shows in no profile of the program: on this project's
 * 2-core virtual machine of 2026-12-02 it was 13 us a page (the same 256 MiB in 2 MiB pages, madvise(MADV_HUGEPAGE),
 * took 49 ms against 530-1,035 ms), so a scan's 40,000-110,000 minor page faults (the tables' page-fault figures) cost
 * it 0.5-1.4 s. It is part of every figure of a run, as the filesystem's state is.
 */
function freshPageMicros(): number {
  const bytes = 64 * 1024 * 1024;
  const each = Array.from({ length: 3 }, () => {
    const started = process.hrtime.bigint();
    const buffer = Buffer.allocUnsafeSlow(bytes);
    for (let at = 0; at < bytes; at += 4096) buffer[at] = 1;
    return Number(process.hrtime.bigint() - started) / 1000 / (bytes / 4096);
  });
  return each.sort((a, b) => a - b)[1]!;
}

/** Milliseconds from starting `node -e 0` to its end (spawned from here, so a fork's cost included): median of seven. */
function nodeStartMillis(env: NodeJS.ProcessEnv): number {
  const each = Array.from({ length: 7 }, () => {
    const started = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0'], { env });
    return Number(process.hrtime.bigint() - started) / 1e6;
  });
  return each.sort((a, b) => a - b)[3]!;
}

/**
 * Node's own start, which every `firmscope` command pays once and binwalk (Python) does not. An environment that sets
 * NODE_EXTRA_CA_CERTS makes every Node process read and parse that certificate file before its first line (on the
 * project's machine of 2026-12-02 21:45, the system's bundle: 40-50 ms of a 0.09-0.12 s start): the line gives the start
 * without it too, so that a small image's figures can be read against a machine that does not set it.
 */
function nodeStartLine(): string {
  const withEnv = nodeStartMillis(process.env);
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (!extra) return `Node's own start (node -e 0): ${withEnv.toFixed(0)} ms.`;
  const { NODE_EXTRA_CA_CERTS: _, ...without } = process.env;
  return `Node's own start (node -e 0): ${withEnv.toFixed(0)} ms with NODE_EXTRA_CA_CERTS=${extra} as this environment sets it (every Node process reads that file at its start), ${nodeStartMillis(without).toFixed(0)} ms without it; the scans below run with the environment as it is.`;
}

/** Above this, the probe's figure comes with a notice: a machine in its usual state creates a file in 20-60 us. */
const SLOW_CREATE_MICROS = 100;

/**
 * Microseconds per new empty file in the bench's folder, over 2,000 made now; they stay until the bench's clean-up
 * (deleting them now would slow the next creations, below). Every scan creates a file per extracted file, so the
 * filesystem's state is part of its figures: on an ext4 without a journal, for minutes after many files were
 * deleted, each new inode is found by stepping over the recently freed ones (ext4's recently_deleted(): within 60 s
 * of the deletion, 360 s while the inode table block is not yet written back), and creating a file took 150-1,400
 * us instead of 40-50 on this project's machines (2026-12-01), ~1.5 s of CPU for the bench image's files.
 */
function fileCreationMicros(): number {
  const dir = join(outputs, 'create-probe');
  mkdirSync(dir);
  const started = process.hrtime.bigint();
  for (let i = 0; i < 2000; i++) closeSync(openSync(join(dir, String(i)), 'w'));
  return Number(process.hrtime.bigint() - started) / 1000 / 2000;
}

mkdirSync(outputs, { recursive: true });
if (!existsSync(join(project, 'dist', 'cli', 'main.js'))) throw new Error('build first: npm run build');
try {
  const create = fileCreationMicros();
  const probe = `File creation in ${work} before the runs: ${create.toFixed(0)} us per file${create > SLOW_CREATE_MICROS ? ` (NOTICE: slow, likely minutes after many deletions on an ext4 without a journal; every scan's figure includes it: wait a few minutes and run again)` : ''}.`;
  const fresh = `Memory touched for the first time before the runs: ${freshPageMicros().toFixed(1)} us per 4 KiB page.`;
  const start = nodeStartLine();
  // the machine's state first, on its own: the runs take minutes
  console.error(`${probe}\n${fresh}\n${start}`);
  const table = process.env.BENCH_SKIP_SQUASHFS ? [] : squashfsTable();
  if (table.length) console.error(table.join('\n'));
  const lines = [probe, fresh, start, '', ...table];
  if (process.env.BENCH_CORPUS !== '0') lines.push('', ...corpusTable());
  console.log(lines.join('\n'));
} finally {
  rmSync(outputs, { recursive: true, force: true });
}

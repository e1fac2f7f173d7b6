// Benchmark: `firmscope unpack` against `binwalk -Me` on every corpus image (time, files extracted), and against
// `unsquashfs` (the native floor) on a ~64 MB xz SquashFS built from system files. Prints a Markdown table.
//   npm run build && npx tsx bench/unpack/run.ts            (BENCH_SKIP_SQUASHFS=1 to skip the big image)
// Every command runs BENCH_RUNS times (default 3) and the run with the median wall time is reported: on a shared
// machine single runs vary by a factor of two.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const project = resolve(import.meta.dirname, '..', '..');
const corpusDir = process.env.FIRMSCOPE_SHARED_DIR ? join(process.env.FIRMSCOPE_SHARED_DIR, 'corpus') : resolve(project, '..', 'shared', 'corpus');
const work = process.env.BENCH_DIR ?? '/tmp/firmscope-bench';
const firmscope = join(project, 'bin', 'firmscope.js');
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));

/** Output folders of this run, removed at the end. */
const outputs = join(work, `out-${process.pid}`);
let outputCount = 0;

/**
 * A new, empty output folder for each timed run. Nothing is deleted between runs: ext4 makes creating files slow
 * for about 30 s after many were deleted nearby (its allocator skips recently deleted inodes), which would charge
 * one run for the clean-up of the previous one.
 */
function freshOutput(name: string): string {
  return join(outputs, `${outputCount++}-${name}`);
}

/** Runs `once` `runs` times and keeps the result with the median wall time. */
function median<T extends { ms: number }>(once: () => T): T {
  const results = Array.from({ length: runs }, once).sort((a, b) => a.ms - b.ms);
  return results[Math.floor((results.length - 1) / 2)]!;
}

/** Regular files below `dir`; `matching` counts only those whose path it accepts. */
function countFiles(dir: string, matching: (path: string) => boolean = () => true): number {
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const st = lstatSync(path);
    if (st.isDirectory()) n += countFiles(path, matching);
    else if (st.isFile() && matching(path)) n++;
  }
  return n;
}

/**
 * binwalk -e writes each chunk it extracts as a carved copy named by its hexadecimal offset and the format's
 * extension (`_x.extracted/163C.7z`, `2527C6.squashfs`) next to what it decoded from it (`163C`, `squashfs-root/`).
 */
const isCarvedCopy = (path: string) => /\/_[^/]*\.extracted\/[0-9A-F]+\.[a-z0-9]+$/.test(path);

interface Timing {
  /** Wall-clock time. */
  ms: number;
  /** User + system CPU time of the process and its children: comparable even on a busy machine. */
  cpuMs: number;
  ok: boolean;
  stderr: string;
  stdout: string;
}

function timed(cmd: string, args: string[], cwd?: string): Timing {
  // Flush what earlier runs wrote (hundreds of MB) so that its write-back does not land on this run's clock.
  spawnSync('sync');
  const report = join(work, 'time.txt');
  const run = spawnSync('/usr/bin/time', ['-f', '%e %U %S', '-o', report, cmd, ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 30 * 60 * 1000,
  });
  const [wall, user, sys] = readFileSync(report, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { ms: wall! * 1000, cpuMs: (user! + sys!) * 1000, ok: run.status === 0, stderr: run.stderr ?? '', stdout: run.stdout ?? '' };
}

function firmscopeRun(image: string, name: string): Timing & { files: number; engineMs: number } {
  return median(() => firmscopeOnce(image, name));
}

function firmscopeOnce(image: string, name: string): Timing & { files: number; engineMs: number } {
  const out = freshOutput(name);
  const r = timed('node', [firmscope, 'unpack', image, '-o', out]);
  if (!r.ok) throw new Error(`firmscope failed on ${image}: ${r.stderr}`);
  // Regular files on disk, minus the node tree and the image's own link.
  // The summary's own duration: the unpacking alone, without the CLI's start-up.
  const engineMs = Number(/bytes, (\d+) ms$/m.exec(r.stdout)?.[1] ?? Number.NaN);
  return { ...r, files: countFiles(out) - 2, engineMs };
}

function binwalkRun(image: string, name: string): Timing & { files: number; carved: number } {
  return median(() => {
    const out = freshOutput(name);
    mkdirSync(out, { recursive: true });
    const r = timed('binwalk', ['-Me', '-q', '--run-as=root', '-C', out, image]);
    return { ...r, files: countFiles(out), carved: countFiles(out, isCarvedCopy) };
  });
}

function unsquashfsRun(image: string, name: string, args: string[]): Timing & { files: number } {
  return median(() => {
    const out = freshOutput(name);
    const r = timed('unsquashfs', ['-q', '-n', ...args, '-d', out, image]);
    return { ...r, files: countFiles(out) };
  });
}

const fmt = (t: Timing) => `${(t.ms / 1000).toFixed(2)} s (cpu ${(t.cpuMs / 1000).toFixed(2)} s)`;

function corpusTable(): string[] {
  const rows = [
    '| image | size | firmscope files | firmscope time | of which unpacking | binwalk -Me files (carved copies) | binwalk -Me time |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  const totals = { fs: 0, bw: 0, fsCpu: 0, bwCpu: 0, fsFiles: 0, bwFiles: 0, bwCarved: 0, engine: 0 };
  for (const name of readdirSync(corpusDir).filter((n) => n !== 'README.md').sort()) {
    const image = join(corpusDir, name);
    const fs = firmscopeRun(image, `fs-${name}`);
    const bw = binwalkRun(image, `bw-${name}`);
    rows.push(`| ${name} | ${statSync(image).size.toLocaleString('en')} | ${fs.files} | ${fmt(fs)} | ${(fs.engineMs / 1000).toFixed(2)} s | ${bw.files} (${bw.carved}) | ${fmt(bw)} |`);
    totals.engine += fs.engineMs;
    console.error(rows.at(-1));
    totals.fs += fs.ms;
    totals.bw += bw.ms;
    totals.fsCpu += fs.cpuMs;
    totals.bwCpu += bw.cpuMs;
    totals.fsFiles += fs.files;
    totals.bwFiles += bw.files;
    totals.bwCarved += bw.carved;
  }
  const total = (ms: number, cpuMs: number): Timing => ({ ms, cpuMs, ok: true, stderr: '', stdout: '' });
  rows.push(
    `| **total** | | **${totals.fsFiles}** | **${fmt(total(totals.fs, totals.fsCpu))}** | **${(totals.engine / 1000).toFixed(2)} s** | **${totals.bwFiles} (${totals.bwCarved})** | **${fmt(total(totals.bw, totals.bwCpu))}** |`,
  );
  return rows;
}

/** Size the SquashFS must reach: the 64 MB image. */
const SQUASHFS_BYTES = 64 * 1024 * 1024;

/**
 * Builds, once, an xz SquashFS of system folders of at least SQUASHFS_BYTES: folders are added (about 240 MB of
 * input shrinks to some 64 MB) and the image rebuilt until it is large enough or the candidates run out.
 */
function buildSquashfs(): string {
  const image = join(work, 'system-xz.squashfs');
  if (existsSync(image) && statSync(image).size >= SQUASHFS_BYTES) return image;
  const candidates = ['/usr/lib/python3.11', '/usr/share/locale', '/usr/share/doc', '/usr/share/perl', '/usr/lib/x86_64-linux-gnu/perl', '/usr/share/man', '/usr/share/i18n', '/usr/share/zoneinfo', '/usr/share/vim', '/usr/lib/gcc', '/usr/include'];
  const chosen: string[] = [];
  let total = 0;
  mkdirSync(work, { recursive: true });
  for (const dir of candidates) {
    if (!existsSync(dir)) continue;
    total += Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
    chosen.push(dir);
    if (total < 240e6) continue;
    execFileSync('mksquashfs', [...chosen, image, '-comp', 'xz', '-noappend', '-quiet', '-no-progress'], { stdio: 'ignore' });
    if (statSync(image).size >= SQUASHFS_BYTES) return image;
  }
  throw new Error(`the system folders give a SquashFS of ${existsSync(image) ? statSync(image).size : 0} bytes, less than ${SQUASHFS_BYTES}`);
}

function squashfsTable(): string[] {
  const image = buildSquashfs();
  const fs = firmscopeRun(image, 'fs-squashfs');
  const one = unsquashfsRun(image, 'unsquashfs-p1', ['-p', '1']);
  const all = unsquashfsRun(image, 'unsquashfs', []);
  const ratio = (us: Timing) => `${(fs.ms / us.ms).toFixed(2)}× wall, ${(fs.cpuMs / us.cpuMs).toFixed(2)}× cpu`;
  return [
    `| tool on ${(statSync(image).size / 1e6).toFixed(1)} MB xz SquashFS | files | time |`,
    '|---|---:|---:|',
    `| firmscope unpack | ${fs.files} | ${fmt(fs)}, unpacking ${(fs.engineMs / 1000).toFixed(2)} s |`,
    `| unsquashfs -p 1 (one decompressor thread) | ${one.files} | ${fmt(one)} |`,
    `| unsquashfs (one decompressor per core) | ${all.files} | ${fmt(all)} |`,
    `| ratio firmscope / unsquashfs -p 1 | | ${ratio(one)} |`,
    `| ratio firmscope / unsquashfs | | ${ratio(all)} |`,
  ];
}

mkdirSync(work, { recursive: true });
if (!existsSync(join(project, 'dist', 'cli', 'main.js'))) throw new Error('build first: npm run build');
try {
  const lines = [...corpusTable(), ''];
  if (!process.env.BENCH_SKIP_SQUASHFS) lines.push(...squashfsTable());
  console.log(lines.join('\n'));
} finally {
  rmSync(outputs, { recursive: true, force: true });
}

// Benchmark: `firmscope unpack` against `binwalk -Me` on every corpus image (time, files extracted), and against
// `unsquashfs` (the native floor) on a 64 MB xz SquashFS built from system files. Prints a Markdown table.
//   npm run build && npx tsx bench/unpack/run.ts            (BENCH_SKIP_SQUASHFS=1 to skip the big image)
// Every command runs BENCH_RUNS times (default 3) and the run with the median wall time is reported: on a shared
// machine single runs vary by a factor of two.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

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

/** Size the SquashFS must have: the 64 MB image, give or take 6%. */
const SQUASHFS_BYTES = 64_000_000;
const SQUASHFS_SLACK = 0.06;

/** Regular files below the system folders the image is made of, in a fixed order, with their sizes. */
function systemFiles(): Array<{ path: string; size: number }> {
  const roots = ['/usr/lib/python3.11', '/usr/share/perl', '/usr/lib/x86_64-linux-gnu/perl', '/usr/share/locale', '/usr/share/doc', '/usr/share/i18n', '/usr/share/zoneinfo', '/usr/share/vim', '/usr/include'];
  const out: Array<{ path: string; size: number }> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      const st = lstatSync(path);
      if (st.isDirectory()) walk(path);
      else if (st.isFile()) out.push({ path, size: st.size });
    }
  };
  for (const root of roots) if (existsSync(root)) walk(root);
  return out;
}

/**
 * Builds, once, an xz SquashFS of system files within SQUASHFS_SLACK of SQUASHFS_BYTES. Folders compress very
 * differently from one machine to the next, so the image is made of the first files of systemFiles() (hard
 * links in a staging tree), and their number is scaled by the size each build gives until it fits.
 */
function buildSquashfs(): string {
  const image = join(work, 'system-xz.squashfs');
  const fits = () => existsSync(image) && Math.abs(statSync(image).size / SQUASHFS_BYTES - 1) <= SQUASHFS_SLACK;
  if (fits()) return image;
  const files = systemFiles();
  // xz shrinks such files to about a quarter: the first guess
  let input = SQUASHFS_BYTES * 4;
  for (let attempt = 0; attempt < 6; attempt++) {
    const staging = join(work, 'squashfs-tree');
    rmSync(staging, { recursive: true, force: true });
    let taken = 0;
    for (const file of files) {
      if (taken >= input) break;
      const to = join(staging, file.path);
      mkdirSync(dirname(to), { recursive: true });
      try {
        linkSync(file.path, to);
      } catch {
        copyFileSync(file.path, to);
      }
      taken += file.size;
    }
    execFileSync('mksquashfs', [staging, image, '-comp', 'xz', '-noappend', '-quiet', '-no-progress'], { stdio: 'ignore' });
    rmSync(staging, { recursive: true, force: true });
    if (fits() || taken < input) break; // fits, or every file is already in
    input = taken * (SQUASHFS_BYTES / statSync(image).size);
  }
  if (!fits()) throw new Error(`could not build a ${SQUASHFS_BYTES}-byte SquashFS from system files (got ${statSync(image).size})`);
  return image;
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

// Benchmark: `firmscope unpack` against `binwalk -Me` on every corpus image (time, files extracted), and against
// `unsquashfs` (the native floor) on a 64 MB xz SquashFS built from system files. Prints a Markdown table.
//   npm run build && npx tsx bench/unpack/run.ts            (BENCH_SKIP_SQUASHFS=1 to skip the big image)
// Every command runs BENCH_RUNS times (default 3) and the run with the median wall time is reported: on a shared
// machine single runs vary by a factor of two.
import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildSystemSquashfs, fmt, median, timed, type Timing } from '../system-image.js';

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

function firmscopeRun(image: string, name: string): Timing & { files: number; engineMs: number } {
  return median(runs, () => firmscopeOnce(image, name));
}

function firmscopeOnce(image: string, name: string): Timing & { files: number; engineMs: number } {
  const out = freshOutput(name);
  const r = timed(work, 'node', [firmscope, 'unpack', image, '-o', out]);
  if (!r.ok) throw new Error(`firmscope failed on ${image}: ${r.stderr}`);
  // Regular files on disk, minus the node tree and the image's own link.
  // The summary's own duration: the unpacking alone, without the CLI's start-up.
  const engineMs = Number(/bytes, (\d+) ms$/m.exec(r.stdout)?.[1] ?? Number.NaN);
  return { ...r, files: countFiles(out) - 2, engineMs };
}

function binwalkRun(image: string, name: string): Timing & { files: number; carved: number } {
  return median(runs, () => {
    const out = freshOutput(name);
    mkdirSync(out, { recursive: true });
    const r = timed(work, 'binwalk', ['-Me', '-q', '--run-as=root', '-C', out, image]);
    return { ...r, files: countFiles(out), carved: countFiles(out, isCarvedCopy) };
  });
}

function unsquashfsRun(image: string, name: string, args: string[]): Timing & { files: number } {
  return median(runs, () => {
    const out = freshOutput(name);
    const r = timed(work, 'unsquashfs', ['-q', '-n', ...args, '-d', out, image]);
    return { ...r, files: countFiles(out) };
  });
}

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
  const total = (ms: number, cpuMs: number) => ({ ms, cpuMs });
  rows.push(
    `| **total** | | **${totals.fsFiles}** | **${fmt(total(totals.fs, totals.fsCpu))}** | **${(totals.engine / 1000).toFixed(2)} s** | **${totals.bwFiles} (${totals.bwCarved})** | **${fmt(total(totals.bw, totals.bwCpu))}** |`,
  );
  return rows;
}

function squashfsTable(): string[] {
  const { image } = buildSystemSquashfs(work);
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

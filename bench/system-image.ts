// Shared by the unpack and scan benchmarks: the 64 MB xz SquashFS built from system files, and a timed run of a
// command (wall time, CPU time and peak RSS through /usr/bin/time) with the median of several runs.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Size the SquashFS must have: the 64 MB image, give or take 6%. */
export const SQUASHFS_BYTES = 64_000_000;
const SQUASHFS_SLACK = 0.06;

/** Regular files below the system folders the image is made of, in a fixed order, with their sizes. */
export function systemFiles(): Array<{ path: string; size: number }> {
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

/** Hard-links (or copies) the first files of systemFiles() totalling at least `bytes` into `staging`. */
export function stageSystemFiles(staging: string, bytes: number): number {
  rmSync(staging, { recursive: true, force: true });
  let taken = 0;
  for (const file of systemFiles()) {
    if (taken >= bytes) break;
    const to = join(staging, file.path);
    mkdirSync(dirname(to), { recursive: true });
    try {
      linkSync(file.path, to);
    } catch {
      copyFileSync(file.path, to);
    }
    taken += file.size;
  }
  return taken;
}

export function mksquashfs(tree: string, image: string): void {
  execFileSync('mksquashfs', [tree, image, '-comp', 'xz', '-noappend', '-quiet', '-no-progress'], { stdio: 'ignore' });
}

/**
 * Builds, once, an xz SquashFS of system files within SQUASHFS_SLACK of SQUASHFS_BYTES in `work`. Folders compress
 * very differently from one machine to the next, so the image is made of the first files of systemFiles() (hard
 * links in a staging tree), and their number is scaled by the size each build gives until it fits. Returns the
 * image and the number of input bytes it holds (to stage the same tree again).
 */
export function buildSystemSquashfs(work: string): { image: string; inputBytes: number } {
  const image = join(work, 'system-xz.squashfs');
  const record = join(work, 'system-xz.input-bytes');
  const fits = () => existsSync(image) && Math.abs(statSync(image).size / SQUASHFS_BYTES - 1) <= SQUASHFS_SLACK;
  if (fits() && existsSync(record)) return { image, inputBytes: Number(readFileSync(record, 'utf8')) };
  // xz shrinks such files to about a quarter: the first guess
  let input = SQUASHFS_BYTES * 4;
  const total = systemFiles().reduce((n, f) => n + f.size, 0);
  for (let attempt = 0; attempt < 6; attempt++) {
    const staging = join(work, 'squashfs-tree');
    const taken = stageSystemFiles(staging, input);
    mksquashfs(staging, image);
    rmSync(staging, { recursive: true, force: true });
    if (fits() || taken >= total) {
      input = taken;
      break;
    }
    input = taken * (SQUASHFS_BYTES / statSync(image).size);
  }
  if (!fits()) throw new Error(`could not build a ${SQUASHFS_BYTES}-byte SquashFS from system files (got ${statSync(image).size})`);
  execFileSync('sh', ['-c', `printf %s ${Math.ceil(input)} > '${record}'`]);
  return { image, inputBytes: input };
}

export interface Timing {
  /** Wall-clock time. */
  ms: number;
  /** User + system CPU time of the process and its children: comparable even on a busy machine. */
  cpuMs: number;
  /** Peak resident set size of the largest process, in bytes. */
  rssBytes: number;
  /**
   * Minor page faults of the process and its children: about one per 4 KiB page of memory it touched first. Each
   * costs the kernel (and, in a virtual machine, its host) time that shows in no profile of the program's own code;
   * see freshPageMicros() in scan/run.ts.
   */
  minorFaults: number;
  ok: boolean;
  stderr: string;
  stdout: string;
}

/** Runs a command under /usr/bin/time after a `sync` (so earlier runs' write-back does not land on its clock). */
export function timed(work: string, cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Timing {
  spawnSync('sync');
  const report = join(work, 'time.txt');
  const run = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M %R', '-o', report, cmd, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 30 * 60 * 1000,
  });
  const [wall, user, sys, rssKb, faults] = readFileSync(report, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { ms: wall! * 1000, cpuMs: (user! + sys!) * 1000, rssBytes: rssKb! * 1024, minorFaults: faults!, ok: run.status === 0, stderr: run.stderr ?? '', stdout: run.stdout ?? '' };
}

/** Runs `once` `runs` times and keeps the result with the median wall time. */
export function median<T extends { ms: number }>(runs: number, once: () => T): T {
  const results = Array.from({ length: runs }, once).sort((a, b) => a.ms - b.ms);
  return results[Math.floor((results.length - 1) / 2)]!;
}

export const fmt = (t: { ms: number; cpuMs: number }) => `${(t.ms / 1000).toFixed(2)} s (cpu ${(t.cpuMs / 1000).toFixed(2)} s)`;

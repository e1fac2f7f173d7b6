// Shared by the filesystem handler tests that build images with Debian tools: a sample source tree and comparing what
// came out with what went in. Running the handler is the shared extract harness's, re-exported here.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { pseudoRandom as noise } from '../../../support/bytes.js';
import { needCommands } from '../../../support/requirements.js';
import { FormatError } from '../../../../src/engine/format-error.js';
import type { Handler } from '../../../../src/engine/unpack/handler.js';
import { entry, extractWith, tempDir, type Extraction } from '../extract-harness.js';

export { entry, extractWith, tempDir, type Extraction } from '../extract-harness.js';
export { pseudoRandom as noise } from '../../../support/bytes.js';

export function run(cmd: string, args: string[], opts: { cwd?: string; input?: Buffer } = {}): Buffer {
  return execFileSync(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], ...opts });
}

/** Whether the Debian command is installed (requirements.ts: a notice, or under CI an error, when not). */
export function haveTool(cmd: string): boolean {
  return needCommands([cmd], `the tests that need ${cmd}`);
}

/**
 * The set-up every image test starts with: whether the Debian tools that build its images are installed (a notice
 * names the missing ones, or under CI an error), a work folder removed after the test file, and the `src` folder for the sample tree.
 */
export function imageWorkspace(name: string, ...tools: string[]): { enabled: boolean; work: string; src: string } {
  const work = tempDir(name);
  return { enabled: needCommands(tools, `the ${name} image tests`), work, src: join(work, 'src') };
}

/**
 * Creates the character device `null` (1:3) and the fifo `fifo` in `dir`. Both need privileges: without them it warns
 * and returns false, and the test skips its device checks.
 */
export function makeDeviceNodes(dir: string, fsName: string): boolean {
  try {
    execFileSync('mknod', [join(dir, 'null'), 'c', '1', '3']);
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    return true;
  } catch {
    console.warn(`NOTICE: cannot create device nodes here; the ${fsName} device checks are skipped`);
    return false;
  }
}

export interface SampleFile {
  path: string;
  kind: 'file' | 'directory' | 'symlink';
  content?: Buffer;
  target?: string;
  mode?: number;
}

/** A small tree with the cases every filesystem handler should get right. */
export function sampleTree(opts: { symlinks?: boolean; modes?: boolean; longNames?: boolean } = {}): SampleFile[] {
  const files: SampleFile[] = [
    { path: 'etc', kind: 'directory', mode: 0o755 },
    { path: 'etc/passwd', kind: 'file', content: Buffer.from('root:x:0:0:root:/root:/bin/sh\n'), mode: 0o644 },
    { path: 'etc/init.d', kind: 'directory', mode: 0o755 },
    { path: 'etc/init.d/rcS', kind: 'file', content: Buffer.from('#!/bin/sh\necho boot\n'), mode: 0o755 },
    { path: 'bin', kind: 'directory', mode: 0o755 },
    { path: 'bin/busybox', kind: 'file', content: noise(70_000, 7), mode: 0o755 },
    { path: 'empty', kind: 'file', content: Buffer.alloc(0), mode: 0o600 },
    { path: 'text.log', kind: 'file', content: Buffer.from('firmscope log line\n'.repeat(3000)), mode: 0o644 },
    { path: 'deep/a/b/c', kind: 'directory', mode: 0o700 },
    { path: 'deep', kind: 'directory', mode: 0o755 },
    { path: 'deep/a', kind: 'directory', mode: 0o755 },
    { path: 'deep/a/b', kind: 'directory', mode: 0o755 },
    { path: 'deep/a/b/c/leaf.bin', kind: 'file', content: noise(5000, 99), mode: 0o640 },
  ];
  if (opts.longNames) {
    files.push({ path: 'A long file name with spaces.txt', kind: 'file', content: Buffer.from('long name\n'), mode: 0o644 });
  }
  if (opts.symlinks) {
    files.push({ path: 'bin/sh', kind: 'symlink', target: 'busybox' });
    files.push({ path: 'etc/far', kind: 'symlink', target: '/' + 'x'.repeat(120) + '/target' });
  }
  return files;
}

export function writeTree(root: string, files: SampleFile[], opts: { modes?: boolean } = {}): void {
  const sorted = [...files].sort((a, b) => a.path.length - b.path.length);
  for (const f of sorted) {
    const at = join(root, f.path);
    if (f.kind === 'directory') mkdirSync(at, { recursive: true });
  }
  for (const f of files) {
    const at = join(root, f.path);
    if (f.kind === 'file') writeFileSync(at, f.content!);
    if (f.kind === 'symlink') symlinkSync(f.target!, at);
  }
  if (opts.modes) for (const f of files) if (f.kind !== 'symlink' && f.mode !== undefined) chmodSync(join(root, f.path), f.mode);
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Every sample entry came out with the same content, mode (when checked) and link target. */
export function expectTree(ex: Extraction, files: SampleFile[], opts: { modes?: boolean } = {}): void {
  expect(ex.error).toBeUndefined();
  for (const f of files) {
    let got = entry(ex, f.path);
    expect(got, `missing ${f.path}`).toBeDefined();
    // A hard link stands for the file it names (which of the names is written first is the walk's choice).
    if (got!.kind === 'hardlink' && f.kind === 'file') got = entry(ex, got!.linkTarget!);
    expect(got!.kind, f.path).toBe(f.kind);
    if (f.kind === 'file') {
      expect(got!.sha256, f.path).toBe(sha256(f.content!));
      expect(readFileSync(join(ex.root, got!.path)).equals(f.content!), f.path).toBe(true);
    }
    if (f.kind === 'symlink') expect(got!.linkTarget, f.path).toBe(f.target);
    if (opts.modes && f.mode !== undefined && f.kind !== 'symlink') expect((got!.meta.mode ?? 0) & 0o7777, f.path).toBe(f.mode);
  }
}

export function cleanup(...dirs: string[]): void {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

/** Flips bytes at pseudo-random positions of a copy (excluding the first `keep` bytes so the magic survives). */
export function corrupt(image: Buffer, count: number, seed: number, keep = 0): Buffer {
  const out = Buffer.from(image);
  const r = noise(count * 8, seed);
  for (let i = 0; i < count; i++) {
    const pos = keep + (r.readUInt32LE(i * 8) % (out.length - keep));
    out[pos] = out[pos]! ^ (r[i * 8 + 4]! | 1);
  }
  return out;
}

/**
 * Extracts `seeds` corrupted copies of `image` (seeds 1..n; `flips` bytes flipped past the first `keep`): each one
 * either extracts or fails with a FormatError, never another error or a hang.
 */
export async function expectCorruptionsRefused(
  handler: Handler,
  image: Buffer,
  seeds: number,
  flips: number | ((seed: number) => number),
  keep: number,
): Promise<void> {
  for (let seed = 1; seed <= seeds; seed++) {
    const ex = await extractWith(handler, corrupt(image, typeof flips === 'number' ? flips : flips(seed), seed, keep));
    if (ex.error !== undefined) expect(ex.error, `seed ${seed}`).toBeInstanceOf(FormatError);
    cleanup(ex.root);
  }
}

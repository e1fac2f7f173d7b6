// Shared by the filesystem handler tests that build images with Debian tools: a sample source tree, running a
// handler's chunk()+extract() into a DirectorySink, and comparing what came out with what went in.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import type { ChunkInfo, Handler } from '../../../../src/engine/unpack/handler.js';
import { Budget, resolveLimits, type Limits } from '../../../../src/engine/unpack/limits.js';
import { BufferReader, FileReader } from '../../../../src/engine/unpack/reader.js';
import { DirectorySink, type SinkEntry } from '../../../../src/engine/unpack/sink.js';

const made: string[] = [];
// Every folder a test file made here is removed when that file's tests end, whatever they asserted.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `firmscope-${prefix}-`));
  made.push(dir);
  return dir;
}

export function run(cmd: string, args: string[], opts: { cwd?: string; input?: Buffer } = {}): Buffer {
  return execFileSync(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], ...opts });
}

export function haveTool(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd} || test -x /usr/sbin/${cmd} || test -x /sbin/${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn(`NOTICE: ${cmd} is not installed; tests that need it are skipped`);
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

/** Deterministic pseudo-random bytes (compressible only a little). */
export function noise(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
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

export interface Extraction {
  chunk: ChunkInfo | null;
  sink: DirectorySink;
  root: string;
  error?: unknown;
}

/** Runs chunk() at `start` and extract() into a fresh sink; never throws (the error is returned). */
export async function extractWith(
  handler: Handler,
  source: string | Buffer,
  start = 0,
  limits: Partial<Limits> = {},
): Promise<Extraction> {
  const reader = typeof source === 'string' ? await FileReader.open(source) : new BufferReader(source);
  const root = tempDir(`${handler.id}-out`);
  const budget = new Budget(resolveLimits(reader.size, { timeoutMs: 20_000, ...limits }));
  const sink = new DirectorySink(root, budget, { source: handler.id, path: 'image' });
  let chunk: ChunkInfo | null = null;
  try {
    chunk = await handler.chunk(reader, start);
    if (chunk && handler.extract) await handler.extract(reader, chunk, sink);
    return { chunk, sink, root };
  } catch (error) {
    return { chunk, sink, root, error };
  } finally {
    budget.dispose();
    if (reader instanceof FileReader) await reader.close();
  }
}

export function entry(ex: Extraction, path: string): SinkEntry | undefined {
  return ex.sink.entries.find((e) => e.path === path);
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

// The sample tree the SquashFS 1.x/2.x and 3.x tests write with their byte-by-byte writers (no mksquashfs for those
// versions on Debian), and the checks of an extraction against it: by our handlers, and by 7-Zip's independent
// reader (a check of the test writers themselves).
import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { entry, noise, sha256, type extractWith } from './fs-image-harness.js';
import type { V2Entry } from './squashfs-v2-writer.js';

/** A router-like tree: every inode type, a hard link, an empty and a sparse file, owners, an extended directory. */
export function routerTree(): V2Entry[] {
  const entries: V2Entry[] = [
    { path: 'bin', kind: 'dir', mode: 0o755 },
    { path: 'bin/busybox', kind: 'file', mode: 0o4755, content: noise(10_000, 1) },
    { path: 'bin/sh', kind: 'symlink', mode: 0o777, target: 'busybox' },
    { path: 'dev', kind: 'dir', mode: 0o755 },
    { path: 'dev/console', kind: 'device', mode: 0o600, rdev: (5 << 8) | 1 },
    { path: 'dev/initctl', kind: 'fifo', mode: 0o600 },
    { path: 'dev/log', kind: 'socket', mode: 0o666 },
    { path: 'etc', kind: 'dir', mode: 0o755 },
    { path: 'etc/passwd', kind: 'file', mode: 0o644, content: Buffer.from('root:x:0:0:root:/root:/bin/sh\n') },
    { path: 'etc/passwd.link', kind: 'hardlink', mode: 0o644, target: 'etc/passwd' },
    { path: 'etc/shadow', kind: 'file', mode: 0o600, content: Buffer.from('root::0:0:99999:7:::\n'), uid: 1000, gid: 100 },
    { path: 'empty', kind: 'file', mode: 0o644, content: Buffer.alloc(0) },
    { path: 'exact', kind: 'file', mode: 0o644, content: noise(4096, 2) },
    // A zero block in the middle is stored sparse; the tail goes to a fragment where the version has them.
    { path: 'sparse', kind: 'file', mode: 0o644, content: Buffer.concat([noise(4096, 3), Buffer.alloc(8192), Buffer.from('end')]) },
    { path: 'www', kind: 'dir', mode: 0o755 },
    { path: 'www/a', kind: 'dir', mode: 0o700 },
    { path: 'www/a/b', kind: 'dir', mode: 0o755 },
    { path: 'www/a/b/index.html', kind: 'file', mode: 0o644, content: Buffer.from('<html>router</html>\n'.repeat(50)) },
  ];
  // Enough entries for an extended directory inode (listing over 256 bytes).
  for (let i = 0; i < 40; i++) entries.push({ path: `www/page-${i}.cgi`, kind: 'file', mode: 0o755, content: Buffer.from(`#!/bin/sh\necho ${i}\n`) });
  return entries;
}

/** The extraction holds every entry with its kind, mode, owner (a missing gid is the uid's), content or target. */
export function expectTree(ex: Awaited<ReturnType<typeof extractWith>>, entries: V2Entry[]): void {
  expect(ex.error).toBeUndefined();
  expect(ex.sink.problems).toEqual([]);
  for (const want of entries) {
    const got = entry(ex, want.path);
    expect(got, want.path).toBeDefined();
    if (want.kind !== 'symlink') expect(got!.meta.mode, want.path).toBe(want.mode);
    expect([got!.meta.uid ?? 0, got!.meta.gid ?? 0], want.path).toEqual([want.uid ?? 0, want.gid ?? want.uid ?? 0]);
    if (want.kind === 'file') {
      expect(got!.kind, want.path).toBe('file');
      expect(got!.sha256, want.path).toBe(sha256(want.content!));
    } else if (want.kind === 'dir') {
      expect(got!.kind).toBe('directory');
    } else if (want.kind === 'symlink' || want.kind === 'hardlink') {
      expect([got!.kind, got!.linkTarget]).toEqual([want.kind, want.target]);
    } else {
      expect(got!.kind).toBe(want.kind);
    }
  }
  expect(entry(ex, 'dev/console')?.meta.meta).toEqual({ rdev: (5 << 8) | 1 });
}

/** 7-Zip extracts `image` (written to `work` as `name`) with the same file contents and symlink targets. */
export function expect7zReadsTree(work: string, name: string, image: Buffer, entries: V2Entry[]): void {
  const path = join(work, `${name}.sqfs`);
  writeFileSync(path, image);
  const out = join(work, name);
  execFileSync('7z', ['x', '-y', `-o${out}`, path], { stdio: 'ignore' });
  for (const f of entries.filter((x) => x.kind === 'file')) {
    expect(sha256(readFileSync(join(out, f.path))), f.path).toBe(sha256(f.content!));
  }
  for (const l of entries.filter((x) => x.kind === 'symlink')) expect(readlinkSync(join(out, l.path)), l.path).toBe(l.target);
}

// SquashFS 2.1 and 1.0 images built byte by byte by squashfs-v2-writer.ts (no mksquashfs 1.x/2.x exists on Debian,
// and no such image is in ../shared/corpus), in both byte orders, with and without fragments; cross-checked with
// 7-Zip's independent SquashFS reader when it is installed.
import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { squashfsV2Handler } from '../../../../src/engine/unpack/filesystems/squashfs-v2.js';
import { squashfsV3Handler } from '../../../../src/engine/unpack/filesystems/squashfs-v3.js';
import { squashfsV4Handler } from '../../../../src/engine/unpack/filesystems/squashfs-v4.js';
import { FormatError } from '../../../../src/engine/unpack/handler.js';
import { cleanup, entry, expectCorruptionsRefused, extractWith, haveTool, noise, sha256, tempDir } from './fs-image-harness.js';
import { writeSquashfsV2, type V2Entry } from './squashfs-v2-writer.js';

const work = tempDir('squashfs-v2');
afterAll(() => cleanup(work));

const have7z = haveTool('7z');

const entries: V2Entry[] = [
  { path: 'bin', kind: 'dir', mode: 0o755, mtime: 1_000_000_001 },
  { path: 'bin/busybox', kind: 'file', mode: 0o4755, content: noise(10_000, 1), mtime: 1_000_000_002 },
  { path: 'bin/sh', kind: 'symlink', mode: 0o777, target: 'busybox' },
  { path: 'dev', kind: 'dir', mode: 0o755 },
  { path: 'dev/console', kind: 'device', mode: 0o600, rdev: (5 << 8) | 1 },
  { path: 'dev/initctl', kind: 'fifo', mode: 0o600 },
  { path: 'dev/log', kind: 'socket', mode: 0o666 },
  { path: 'empty-dir', kind: 'dir', mode: 0o700 },
  { path: 'etc', kind: 'dir', mode: 0o755 },
  { path: 'etc/passwd', kind: 'file', mode: 0o644, content: Buffer.from('root:x:0:0:root:/root:/bin/sh\n') },
  { path: 'etc/passwd.link', kind: 'hardlink', mode: 0o644, target: 'etc/passwd' },
  { path: 'etc/shadow', kind: 'file', mode: 0o600, content: Buffer.from('root::0:0:99999:7:::\n'), uid: 1000, gid: 100 },
  { path: 'empty', kind: 'file', mode: 0o644, content: Buffer.alloc(0) },
  { path: 'exact', kind: 'file', mode: 0o644, content: noise(4096, 2) },
  // A zero block in the middle is stored sparse.
  { path: 'sparse', kind: 'file', mode: 0o644, content: Buffer.concat([noise(4096, 3), Buffer.alloc(8192), Buffer.from('end')]) },
  { path: 'www', kind: 'dir', mode: 0o755 },
  { path: 'www/a', kind: 'dir', mode: 0o700 },
  { path: 'www/a/b', kind: 'dir', mode: 0o755 },
  { path: 'www/a/b/index.html', kind: 'file', mode: 0o644, content: Buffer.from('<html>router</html>\n'.repeat(50)) },
];
// Enough entries for an extended directory inode (listing over 256 bytes).
for (let i = 0; i < 40; i++) entries.push({ path: `www/page-${i}.cgi`, kind: 'file', mode: 0o755, content: Buffer.from(`#!/bin/sh\necho ${i}\n`) });
// More than 16 owners: 1.x keeps the high bits of a uid index in the inode type (and in the IPC inode).
entries.push({ path: 'home', kind: 'dir', mode: 0o755 });
for (let i = 0; i < 18; i++) entries.push({ path: `home/user-${i}`, kind: 'file', mode: 0o600, content: Buffer.from(`user ${i}\n`), uid: 2000 + i, gid: 0 });
entries.push({ path: 'home/user-17.pipe', kind: 'fifo', mode: 0o600, uid: 2017, gid: 0 });
const INODES = entries.filter((x) => x.kind !== 'hardlink').length + 1;

function expectEntries(ex: Awaited<ReturnType<typeof extractWith>>): void {
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
  // Files and directories carry their own mtime; other inodes take the superblock's.
  expect(entry(ex, 'bin/busybox')?.meta.mtime).toBe(1_000_000_002);
  expect(entry(ex, 'bin')?.meta.mtime).toBe(1_000_000_001);
  expect(entry(ex, 'dev/initctl')?.meta.mtime).toBe(1_100_000_000);
}

describe('squashfs-v2 handler', () => {
  for (const endian of ['le', 'be'] as const) {
    for (const noFragments of [false, true]) {
      it(`extracts a ${endian === 'le' ? 'little' : 'big'}-endian image ${noFragments ? 'without' : 'with'} fragments`, async () => {
        const image = await writeSquashfsV2(entries, { endian, noFragments });
        const used = endian === 'le' ? image.readUInt32LE(8) : image.readUInt32BE(8);
        const ex = await extractWith(squashfsV2Handler, image);
        expect(ex.chunk).toMatchObject({ start: 0, end: used, meta: { version: '2.1', endian, blockSize: 4096, inodes: INODES } });
        expectEntries(ex);
        cleanup(ex.root);
      });
    }
    it(`extracts a ${endian === 'le' ? 'little' : 'big'}-endian SquashFS 1.0 image`, async () => {
      for (const blockSize of [4096, 32768]) {
        const image = await writeSquashfsV2(entries, { endian, major: 1, blockSize });
        const ex = await extractWith(squashfsV2Handler, image);
        expect(ex.chunk).toMatchObject({ start: 0, meta: { version: '1.0', endian, blockSize, inodes: INODES } });
        expectEntries(ex);
        cleanup(ex.root);
      }
    });
  }

  for (const codec of ['lzma-alone', 'lzma-props5'] as const) {
    it(`extracts 2.1 and 1.0 images with vendor LZMA blocks (${codec})`, async () => {
      for (const major of [2, 1] as const) {
        const ex = await extractWith(squashfsV2Handler, await writeSquashfsV2(entries, { endian: 'be', codec, major }));
        expect(ex.chunk?.meta).toMatchObject({ version: `${major}.${major === 2 ? 1 : 0}` });
        expectEntries(ex);
        cleanup(ex.root);
      }
    });
  }

  it('reads a 64 KiB block image carved at an offset', async () => {
    const image = await writeSquashfsV2(entries, { endian: 'be', blockSize: 65536 });
    const ex = await extractWith(squashfsV2Handler, Buffer.concat([Buffer.alloc(512, 0xff), image]), 512);
    expect(ex.chunk).toMatchObject({ start: 512, meta: { blockSize: 65536 } });
    expectEntries(ex);
    cleanup(ex.root);
  });

  it.runIf(have7z)('writes images that 7-Zip reads the same way (independent check of the test writer)', async () => {
    for (const [endian, major] of [['le', 2], ['be', 2], ['le', 1], ['be', 1]] as const) {
      const path = join(work, `seven-${endian}-${major}.sqfs`);
      writeFileSync(path, await writeSquashfsV2(entries, { endian, major }));
      const out = join(work, `seven-${endian}-${major}`);
      execFileSync('7z', ['x', '-y', `-o${out}`, path], { stdio: 'ignore' });
      for (const f of entries.filter((x) => x.kind === 'file')) {
        expect(sha256(readFileSync(join(out, f.path))), f.path).toBe(sha256(f.content!));
      }
      expect(readlinkSync(join(out, 'bin/sh'))).toBe('busybox');
    }
  });

  it('leaves SquashFS 3 and 4 to their handlers, is left alone by them, and rejects junk quietly', async () => {
    const image = await writeSquashfsV2(entries, { endian: 'le' });
    const results = await Promise.all([
      extractWith(squashfsV3Handler, image),
      extractWith(squashfsV4Handler, image),
      extractWith(squashfsV2Handler, Buffer.concat([Buffer.from('hsqs'), noise(300, 4)])),
    ]);
    expect(results.map((r) => [r.chunk, r.error])).toEqual([[null, undefined], [null, undefined], [null, undefined]]);
    cleanup(...results.map((r) => r.root));
  });

  it('reports truncation and survives corrupted tables and blocks', async () => {
    const image = await writeSquashfsV2(entries, { endian: 'be' });
    const used = image.readUInt32BE(8);
    const cut = await extractWith(squashfsV2Handler, image.subarray(0, used - 50));
    expect(cut.error).toBeInstanceOf(FormatError);
    cleanup(cut.root);
    await expectCorruptionsRefused(squashfsV2Handler, image.subarray(0, used), 30, (seed) => 1 + (seed % 4), 63);
    const v1 = await writeSquashfsV2(entries, { endian: 'le', major: 1 });
    await expectCorruptionsRefused(squashfsV2Handler, v1.subarray(0, v1.readUInt32LE(8)), 30, (seed) => 1 + (seed % 4), 63);
  }, 60_000);
});

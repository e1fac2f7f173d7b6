import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { squashfsV3Handler } from '../../../../src/engine/unpack/filesystems/squashfs-v3.js';
import { squashfsV4Handler } from '../../../../src/engine/unpack/filesystems/squashfs-v4.js';
import { FormatError } from '../../../../src/engine/unpack/handler.js';
import { cleanup, entry, expectCorruptionsRefused, extractWith, noise, sha256, tempDir } from './fs-image-harness.js';
import { writeSquashfsV3, type V3Codec, type V3Entry } from './squashfs-v3-writer.js';

const work = tempDir('squashfs-v3');
afterAll(() => cleanup(work));

const have7z = (() => {
  try {
    execFileSync('7z', ['i'], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn('NOTICE: 7z is not installed; the independent SquashFS 3 cross-check is skipped');
    return false;
  }
})();

const entries: V3Entry[] = [
  { path: 'bin', kind: 'dir', mode: 0o755 },
  { path: 'bin/busybox', kind: 'file', mode: 0o4755, content: noise(10_000, 1) },
  { path: 'bin/sh', kind: 'symlink', mode: 0o777, target: 'busybox' },
  { path: 'dev', kind: 'dir', mode: 0o755 },
  { path: 'dev/console', kind: 'device', mode: 0o600, rdev: (5 << 8) | 1 },
  { path: 'dev/initctl', kind: 'fifo', mode: 0o600 },
  { path: 'dev/log', kind: 'socket', mode: 0o666 },
  { path: 'etc', kind: 'dir', mode: 0o755, uid: 0, gid: 0 },
  { path: 'etc/passwd', kind: 'file', mode: 0o644, content: Buffer.from('root:x:0:0:root:/root:/bin/sh\n') },
  { path: 'etc/passwd.link', kind: 'hardlink', mode: 0o644, target: 'etc/passwd' },
  { path: 'etc/shadow', kind: 'file', mode: 0o600, content: Buffer.from('root::0:0:99999:7:::\n'), uid: 1000, gid: 100 },
  { path: 'empty', kind: 'file', mode: 0o644, content: Buffer.alloc(0) },
  { path: 'exact', kind: 'file', mode: 0o644, content: noise(4096, 2) },
  // A zero block in the middle is stored sparse; the tail goes to a fragment.
  { path: 'sparse', kind: 'file', mode: 0o644, content: Buffer.concat([noise(4096, 3), Buffer.alloc(8192), Buffer.from('end')]) },
  { path: 'www', kind: 'dir', mode: 0o755 },
  { path: 'www/a', kind: 'dir', mode: 0o700 },
  { path: 'www/a/b', kind: 'dir', mode: 0o755 },
  { path: 'www/a/b/index.html', kind: 'file', mode: 0o644, content: Buffer.from('<html>router</html>\n'.repeat(50)) },
];
// Enough entries for an extended directory inode (listing over 256 bytes).
for (let i = 0; i < 40; i++) entries.push({ path: `www/page-${i}.cgi`, kind: 'file', mode: 0o755, content: Buffer.from(`#!/bin/sh\necho ${i}\n`) });

function expectEntries(ex: Awaited<ReturnType<typeof extractWith>>): void {
  expect(ex.error).toBeUndefined();
  expect(ex.sink.problems).toEqual([]);
  for (const want of entries) {
    const got = entry(ex, want.path);
    expect(got, want.path).toBeDefined();
    if (want.kind !== 'symlink') expect(got!.meta.mode, want.path).toBe(want.mode);
    expect(got!.meta.uid ?? 0, want.path).toBe(want.uid ?? 0);
    expect(got!.meta.gid ?? 0, want.path).toBe(want.gid ?? 0);
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

describe('squashfs-v3 handler', () => {
  const codecs: V3Codec[] = ['zlib', 'lzma-alone', 'lzma-props5', 'lzma-raw', 'mixed'];
  for (const endian of ['le', 'be'] as const) {
    for (const codec of codecs) {
      it(`extracts a ${endian === 'le' ? 'little' : 'big'}-endian image with ${codec} blocks`, async () => {
        const image = await writeSquashfsV3(entries, { endian, codec, lzmaMagic: codec === 'lzma-alone' && endian === 'be' });
        const used = Number(endian === 'le' ? image.readBigUInt64LE(63) : image.readBigUInt64BE(63));
        const ex = await extractWith(squashfsV3Handler, image);
        expect(ex.chunk).toMatchObject({ start: 0, end: used, meta: { version: '3.1', endian, blockSize: 4096, inodes: 58 } });
        expectEntries(ex);
        cleanup(ex.root);
      });
    }
  }

  it.runIf(have7z)('writes images that 7-Zip reads the same way (independent check of the test writer)', async () => {
    for (const endian of ['le', 'be'] as const) {
      const path = join(work, `seven-${endian}.sqfs`);
      writeFileSync(path, await writeSquashfsV3(entries, { endian, codec: 'zlib' }));
      const out = join(work, `seven-${endian}`);
      execFileSync('7z', ['x', '-y', `-o${out}`, path], { stdio: 'ignore' });
      for (const f of entries.filter((x) => x.kind === 'file')) {
        expect(sha256(readFileSync(join(out, f.path))), f.path).toBe(sha256(f.content!));
      }
    }
  });

  it('leaves SquashFS 4 to its own handler and rejects junk quietly', async () => {
    const image = await writeSquashfsV3(entries, { endian: 'le', codec: 'zlib' });
    const asV4 = await extractWith(squashfsV4Handler, image);
    const junk = await extractWith(squashfsV3Handler, Buffer.concat([Buffer.from('sqsh'), noise(300, 4)]));
    expect([asV4.chunk, asV4.error, junk.chunk, junk.error]).toEqual([null, undefined, null, undefined]);
    cleanup(asV4.root, junk.root);
  });

  it('reports truncation and survives corrupted tables and blocks', async () => {
    const image = await writeSquashfsV3(entries, { endian: 'be', codec: 'mixed' });
    const used = Number(image.readBigUInt64BE(63));
    const cut = await extractWith(squashfsV3Handler, image.subarray(0, used - 50));
    expect(cut.error).toBeInstanceOf(FormatError);
    cleanup(cut.root);
    await expectCorruptionsRefused(squashfsV3Handler, image.subarray(0, used), 30, (seed) => 1 + (seed % 4), 119);
  }, 60_000);
});

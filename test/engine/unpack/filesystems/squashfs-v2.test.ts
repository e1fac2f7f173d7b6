// SquashFS 2.1 and 1.0 images built byte by byte by squashfs-v2-writer.ts (no mksquashfs 1.x/2.x exists on Debian,
// and no such image is in ../shared/corpus), in both byte orders, with and without fragments; cross-checked with
// 7-Zip's independent SquashFS reader when it is installed.
import { afterAll, describe, expect, it } from 'vitest';
import { squashfsV2Handler } from '../../../../src/engine/unpack/filesystems/squashfs/v2.js';
import { squashfsV3Handler } from '../../../../src/engine/unpack/filesystems/squashfs/v3.js';
import { squashfsV4Handler } from '../../../../src/engine/unpack/filesystems/squashfs/v4.js';
import { FormatError } from '../../../../src/engine/format-error.js';
import { cleanup, entry, expectCorruptionsRefused, extractWith, haveTool, noise, tempDir } from './fs-image-harness.js';
import { expect7zReadsTree, expectTree, routerTree } from './squashfs-tree.js';
import { writeSquashfsV2, type V2Entry } from './squashfs-v2-writer.js';

const work = tempDir('squashfs-v2');
afterAll(() => cleanup(work));

const have7z = haveTool('7z');

// The router tree, with file and directory mtimes of their own and an empty directory.
const entries: V2Entry[] = routerTree().map((x) => (x.path === 'bin' ? { ...x, mtime: 1_000_000_001 } : x.path === 'bin/busybox' ? { ...x, mtime: 1_000_000_002 } : x));
entries.push({ path: 'empty-dir', kind: 'dir', mode: 0o700 });
// More than 16 owners: 1.x keeps the high bits of a uid index in the inode type (and in the IPC inode).
entries.push({ path: 'home', kind: 'dir', mode: 0o755 });
for (let i = 0; i < 18; i++) entries.push({ path: `home/user-${i}`, kind: 'file', mode: 0o600, content: Buffer.from(`user ${i}\n`), uid: 2000 + i, gid: 0 });
entries.push({ path: 'home/user-17.pipe', kind: 'fifo', mode: 0o600, uid: 2017, gid: 0 });
const INODES = entries.filter((x) => x.kind !== 'hardlink').length + 1;

function expectEntries(ex: Awaited<ReturnType<typeof extractWith>>): void {
  expectTree(ex, entries);
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
      expect7zReadsTree(work, `seven-${endian}-${major}`, await writeSquashfsV2(entries, { endian, major }), entries);
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

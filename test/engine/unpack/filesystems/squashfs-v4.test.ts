import { linkSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { squashfsV4Handler } from '../../../../src/engine/unpack/filesystems/squashfs/v4.js';
import { FormatError } from '../../../../src/engine/format-error.js';
import { corpus, haveShared } from '../../../support/shared.js';
import {
  cleanup,
  entry,
  expectCorruptionsRefused,
  expectTree,
  extractWith,
  imageWorkspace,
  noise,
  run,
  type SampleFile,
  sampleTree,
  writeTree,
} from './fs-image-harness.js';
import { bombTree, expectBombStopped } from '../bomb-harness.js';
import { swapSquashfsV4 } from './squashfs-v4-swap.js';

const { enabled, work, src } = imageWorkspace('squashfs-v4', 'mksquashfs');
let files: SampleFile[];

/** Builds an image of `src` with mksquashfs; device nodes, fifos and sockets come from pseudo definitions. */
function mksquashfs(name: string, args: string[], from = src): string {
  const image = join(work, name);
  run('mksquashfs', [
    from, image, '-noappend', '-quiet', '-no-progress', '-processors', '1',
    '-p', 'dev/null c 666 0 0 1 3',
    '-p', 'dev/sda b 660 0 6 8 0',
    '-p', 'dev/initctl i 600 1000 100 f',
    '-p', 'dev/log i 666 0 0 s',
    ...args,
  ]);
  return image;
}

beforeAll(() => {
  files = [
    ...sampleTree({ symlinks: true, longNames: true }),
    // Several 4 KiB blocks, one of them all zero (stored sparse), and a tail in a fragment.
    { path: 'big.bin', kind: 'file', content: Buffer.concat([noise(9000, 3), Buffer.alloc(8192), noise(3000, 4)]), mode: 0o644 },
    { path: 'exact-block', kind: 'file', content: noise(4096, 5), mode: 0o644 },
    { path: 'setuid', kind: 'file', content: Buffer.from('suid'), mode: 0o4755 },
    { path: 'dev', kind: 'directory', mode: 0o755 },
    { path: 'Ünïcode ✓.txt', kind: 'file', content: Buffer.from('utf-8 name'), mode: 0o644 },
  ];
  let deep = 'nest';
  files.push({ path: deep, kind: 'directory', mode: 0o755 });
  for (let i = 0; i < 40; i++) {
    deep += `/d${i}`;
    files.push({ path: deep, kind: 'directory', mode: 0o755 });
  }
  files.push({ path: `${deep}/bottom.txt`, kind: 'file', content: Buffer.from('deep'), mode: 0o644 });
  files.push({ path: 'many', kind: 'directory', mode: 0o755 });
  // Over 256 entries with long names: several directory headers and an extended directory inode with an index.
  for (let i = 0; i < 400; i++) {
    files.push({ path: `many/${'n'.repeat(150)}-${i}`, kind: 'file', content: Buffer.from(`entry ${i}\n`), mode: 0o644 });
  }
  writeTree(src, files, { modes: true });
  linkSync(join(src, 'etc/passwd'), join(src, 'etc/passwd.hardlink'));
  writeTree(join(work, 'small'), sampleTree({ symlinks: true }), { modes: true });
});

function expectSpecials(ex: Awaited<ReturnType<typeof extractWith>>): void {
  expect(entry(ex, 'dev/null')).toMatchObject({ kind: 'device', meta: { mode: 0o666, meta: { rdev: (1 << 8) | 3 } } });
  expect(entry(ex, 'dev/sda')).toMatchObject({ kind: 'device', meta: { mode: 0o660, gid: 6 } });
  expect(entry(ex, 'dev/initctl')).toMatchObject({ kind: 'fifo', meta: { mode: 0o600, uid: 1000, gid: 100 } });
  expect(entry(ex, 'dev/log')).toMatchObject({ kind: 'socket' });
  const links = ex.sink.entries.filter((e) => e.path === 'etc/passwd' || e.path === 'etc/passwd.hardlink');
  expect(links.map((e) => e.kind).sort()).toEqual(['file', 'hardlink']);
  const link = links.find((e) => e.kind === 'hardlink')!;
  expect(link.linkTarget).toBe(links.find((e) => e.kind === 'file')!.path);
}

describe.runIf(enabled)('squashfs-v4 handler', () => {
  for (const comp of ['gzip', 'lzo', 'xz', 'lz4', 'zstd', 'lzma']) {
    it(`extracts a ${comp} image with fragments, sparse blocks, links and special files`, async () => {
      const image = mksquashfs(`${comp}.sqfs`, ['-comp', comp, '-b', '4096']);
      const used = readFileSync(image).readUInt32LE(40);
      const ex = await extractWith(squashfsV4Handler, image);
      expect(ex.chunk).toMatchObject({ start: 0, end: used, meta: { compression: comp, blockSize: 4096, endian: 'le' } });
      // mksquashfs pads to 4 KiB; the padding is not part of the chunk.
      expect(statSync(image).size % 4096).toBe(0);
      expectTree(ex, files, { modes: true });
      expectSpecials(ex);
      expect(ex.sink.problems).toEqual([]);
      cleanup(ex.root);
    });
  }

  it('extracts uncompressed tables and data, without fragments, carved from the middle of a file', async () => {
    const image = mksquashfs('plain.sqfs', ['-noI', '-noD', '-noF', '-noX', '-no-fragments', '-nopad']);
    const carved = join(work, 'plain-carved.bin');
    const data = readFileSync(image);
    writeFileSync(carved, Buffer.concat([noise(1000, 1), data, Buffer.alloc(500, 0xff)]));
    const ex = await extractWith(squashfsV4Handler, carved, 1000);
    expect(ex.chunk).toMatchObject({ start: 1000, end: 1000 + data.length });
    expectTree(ex, files, { modes: true });
    expectSpecials(ex);
    cleanup(ex.root);
  });

  it('extracts a big-endian image (every field byte-swapped from a generated little-endian one)', async () => {
    const le = readFileSync(mksquashfs('for-be.sqfs', ['-noI', '-noId', '-noD', '-noF', '-noX', '-no-exports', '-no-xattrs']));
    const ex = await extractWith(squashfsV4Handler, swapSquashfsV4(le));
    expect(ex.chunk).toMatchObject({ start: 0, end: le.readUInt32LE(40), meta: { endian: 'be' } });
    expectTree(ex, files, { modes: true });
    expectSpecials(ex);
    expect(ex.sink.problems).toEqual([]);
    cleanup(ex.root);
  });

  it('rejects false positives quietly and truncation with a reason', async () => {
    const image = readFileSync(mksquashfs('small.sqfs', ['-comp', 'gzip']));
    const fake = await extractWith(squashfsV4Handler, Buffer.concat([Buffer.from('hsqs'), noise(200, 9)]));
    expect([fake.chunk, fake.error]).toEqual([null, undefined]);
    const badLog = Buffer.from(image);
    badLog.writeUInt16LE(13, 22); // block_log no longer matches the 128 KiB block size
    const rejected = await extractWith(squashfsV4Handler, badLog);
    expect([rejected.chunk, rejected.error]).toEqual([null, undefined]);
    const ex = await extractWith(squashfsV4Handler, image.subarray(0, image.readUInt32LE(40) - 100));
    expect(ex.error).toBeInstanceOf(FormatError);
    expect(String(ex.error)).toMatch(/truncated/);
    cleanup(fake.root, rejected.root, ex.root);
  });

  it('survives random corruption of tables and blocks: FormatErrors and problems, no crash, no hang', async () => {
    const image = readFileSync(mksquashfs('fuzz.sqfs', ['-comp', 'xz', '-b', '4096', '-nopad'], join(work, 'small')));
    await expectCorruptionsRefused(squashfsV4Handler, image, 60, (seed) => 1 + (seed % 4), 96);
  }, 60_000);

  it('stops bombs at a 1 MiB budget in bounded memory: 256 MiB of zeros (sparse blocks), 48 MiB of text (gzip blocks)', async () => {
    const trees = { zeros: bombTree(join(work, 'zeros'), { zerosMiB: 256, textMiB: 0 }), text: bombTree(join(work, 'text'), { zerosMiB: 0, textMiB: 48 }) };
    for (const [kind, tree] of Object.entries(trees)) {
      const image = mksquashfs(`bomb-${kind}.sqfs`, ['-comp', 'gzip'], tree);
      expect(statSync(image).size).toBeLessThan(1024 * 1024);
      await expectBombStopped(squashfsV4Handler, image, 1024 * 1024);
    }
  }, 60_000);

  it('reports a directory loop and an inode that points to itself, and extracts the rest', async () => {
    const image = Buffer.from(readFileSync(mksquashfs('loop.sqfs', ['-noI', '-noD', '-no-fragments'])));
    // In an uncompressed directory table, entry "d0" (a directory) is: offset u16, delta i16, type u16 = 1,
    // size u16 = 1, "d0", right after its 12-byte header (count, start_block, inode_number). Point it at the root.
    const dirTable = Number(image.readBigUInt64LE(72));
    const root = Number(image.readBigUInt64LE(32));
    const at = image.indexOf(Buffer.from([1, 0, 1, 0, 0x64, 0x30]), dirTable);
    expect(at).toBeGreaterThan(0);
    image.writeUInt16LE(root & 0xffff, at - 4);
    image.writeUInt32LE(Math.floor(root / 65536), at - 12);
    const ex = await extractWith(squashfsV4Handler, image);
    expect(ex.error).toBeUndefined();
    expect(ex.sink.problems.some((p) => /loop/.test(p.message))).toBe(true);
    expect(entry(ex, 'etc/passwd')?.kind).toBe('file');
    cleanup(ex.root);

    // A directory that lists itself ("d1" inside "d0" made to name d0's own inode), and a file whose inode
    // claims 2 GiB: both are reported, everything else comes out.
    const self = Buffer.from(readFileSync(join(work, 'loop.sqfs')));
    const d0 = self.indexOf(Buffer.from([1, 0, 1, 0, 0x64, 0x30]), dirTable);
    const d1 = self.indexOf(Buffer.from([1, 0, 1, 0, 0x64, 0x31]), dirTable);
    self.writeUInt16LE(self.readUInt16LE(d0 - 4), d1 - 4);
    self.writeUInt32LE(self.readUInt32LE(d0 - 12), d1 - 12);
    const inodeTable = Number(self.readBigUInt64LE(64));
    const logSize = Buffer.alloc(4);
    logSize.writeUInt32LE(files.find((f) => f.path === 'text.log')!.content!.length);
    const sizeAt = self.indexOf(logSize, inodeTable);
    expect(sizeAt).toBeGreaterThan(inodeTable);
    self.writeUInt32LE(0x7fffffff, sizeAt);
    const ex2 = await extractWith(squashfsV4Handler, self);
    expect(ex2.error).toBeUndefined();
    expect(ex2.sink.problems.some((p) => p.message.startsWith('nest/d0/d1: directory loop'))).toBe(true);
    expect(ex2.sink.problems.some((p) => p.message.startsWith('text.log:'))).toBe(true);
    expect(entry(ex2, 'text.log')).toBeUndefined();
    expect(entry(ex2, 'bin/busybox')?.kind).toBe('file');
    cleanup(ex2.root);
  });
});

describe.runIf(haveShared('corpus'))('squashfs-v4 on corpus images', () => {
  it('extracts the TRENDnet vendor-LZMA image (5-byte props header + raw stream blocks)', async () => {
    const ex = await extractWith(squashfsV4Handler, corpus('trendnet-tew733gr-rootfs.squashfs'));
    expect(ex.error).toBeUndefined();
    expect(ex.chunk).toMatchObject({ end: 3_647_665, meta: { compression: 'lzma', inodes: 1811, blockSize: 524288 } });
    // Every inode but the root comes out: 1476 files, 98 directories, 160 symlinks, 76 device nodes.
    const count = (kind: string) => ex.sink.entries.filter((e) => e.kind === kind).length;
    expect([count('file'), count('directory'), count('symlink'), count('device')]).toEqual([1476, 98, 160, 76]);
    expect(readFileSync(join(ex.root, 'etc/openssl.cnf'), 'latin1')).toMatch(/^#\n# OpenSSL example configuration file/);
    expect(readFileSync(join(ex.root, 'bin/busybox')).subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(ex.sink.problems).toEqual([]);
    cleanup(ex.root);
  }, 60_000);

  it('extracts the OpenWrt xz root filesystem at 0x2527C6 (756 inodes, same as unsquashfs -l)', async () => {
    const ex = await extractWith(squashfsV4Handler, corpus('openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin'), 0x2527c6);
    expect(ex.error).toBeUndefined();
    expect(ex.chunk).toMatchObject({ start: 0x2527c6, end: 0x2527c6 + 1_409_076, meta: { compression: 'xz', inodes: 756 } });
    expect(ex.sink.entries).toHaveLength(755);
    const count = (kind: string) => ex.sink.entries.filter((e) => e.kind === kind).length;
    expect([count('file'), count('directory'), count('symlink'), count('device')]).toEqual([510, 65, 179, 1]);
    expect(readFileSync(join(ex.root, 'etc/openwrt_release'), 'latin1')).toMatch(/DISTRIB_ID='OpenWrt'/);
    expect(entry(ex, 'bin/sh')).toMatchObject({ kind: 'symlink', linkTarget: 'busybox' });
    cleanup(ex.root);
  }, 60_000);

  it('extracts the tiny gzip image inside the TP-Link firmware at 0x120200', async () => {
    const ex = await extractWith(squashfsV4Handler, corpus('tplink-tl-mr3020-v1_3.17.2_test.tpl'), 0x120200);
    expect(ex.error).toBeUndefined();
    expect(ex.chunk).toMatchObject({ start: 0x120200, end: 0x120200 + 401 });
    expect(ex.sink.entries.map((e) => e.path).sort()).toEqual(['generic folder', 'generic folder/test file 3_.txt', 'testfile1', 'testfile2']);
    expect(entry(ex, 'testfile1')?.size).toBe(62);
    cleanup(ex.root);
  });
});

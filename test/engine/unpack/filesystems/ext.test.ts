import { linkSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bombTree, expectBombStopped } from '../bomb-harness.js';
import { extHandler } from '../../../../src/engine/unpack/filesystems/ext/ext.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
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

const { enabled, work, src } = imageWorkspace('ext', 'mke2fs');
let files: SampleFile[];

function mkfs(name: string, type: string, blockSize: number, blocks: number, features: string[] = [], extra: string[] = []): string {
  const image = join(work, name);
  const args = ['-q', '-F', '-t', type, '-b', String(blockSize), '-d', src, '-L', 'fsroot', '-N', '256', '-E', 'root_owner=0:0'];
  if (features.length) args.push('-O', features.join(','));
  args.push(...extra);
  run('mke2fs', [...args, image, String(blocks)], { cwd: work });
  return image;
}

beforeAll(() => {
  files = [
    ...sampleTree({ symlinks: true, longNames: true }),
    // 300 KB with a hole in the middle: exercises double-indirect blocks on 1 KiB ext2 and sparse extents.
    { path: 'big.bin', kind: 'file', content: Buffer.concat([noise(150_000, 3), Buffer.alloc(100_000), noise(50_000, 4)]), mode: 0o644 },
    { path: 'tiny', kind: 'file', content: Buffer.from('inline me'), mode: 0o644 },
    // Over 60 bytes: with inline_data the rest lives in the in-inode "system.data" attribute.
    { path: 'mid.txt', kind: 'file', content: Buffer.from('0123456789'.repeat(11)), mode: 0o644 },
  ];
  // Enough entries to spill the root directory over several blocks (and make ext4 index it).
  for (let i = 0; i < 150; i++) files.push({ path: `many/file-with-a-longish-name-${i}`, kind: 'file', content: Buffer.from(`n${i}`), mode: 0o644 });
  files.push({ path: 'many', kind: 'directory', mode: 0o755 }, { path: 'dev', kind: 'directory', mode: 0o755 });
  writeTree(src, files, { modes: true });
  linkSync(join(src, 'etc/passwd'), join(src, 'etc/passwd-'));
});

describe.runIf(enabled)('ext handler', () => {
  it('stops a bomb (a 64 MiB sparse file, 16 MiB of text) at a 1 MiB budget, in bounded memory', async () => {
    const image = join(work, 'bomb.ext4');
    run('mke2fs', ['-q', '-t', 'ext4', '-d', bombTree(join(work, 'bomb')), image, '32M']);
    await expectBombStopped(extHandler, image, 1024 * 1024);
  });

  it('extracts ext2 with 1 KiB blocks (block maps, double indirect, holes) and finds the exact chunk end', async () => {
    const image = mkfs('ext2.img', 'ext2', 1024, 1200);
    run('debugfs', ['-w', '-f', '-', image], { input: Buffer.from('cd dev\nmknod console c 5 1\nmknod mtdblock3 b 31 3\n') });
    // Carved: the image sits after 4 KiB of junk and before trailing bytes.
    const padded = join(work, 'ext2-carved.bin');
    writeFileSync(padded, Buffer.concat([noise(4096, 1), readFileSync(image), Buffer.alloc(777, 0xff)]));
    const ex = await extractWith(extHandler, padded, 4096);
    expect(ex.chunk).toMatchObject({ start: 4096, end: 4096 + 1200 * 1024, meta: { version: 'ext2', label: 'fsroot' } });
    expectTree(ex, files, { modes: true });
    expect(ex.sink.problems).toEqual([]);
    expect(entry(ex, 'dev/console')).toMatchObject({ kind: 'device', meta: { meta: { major: 5, minor: 1, kind: 'char' } } });
    expect(entry(ex, 'dev/mtdblock3')?.meta.meta).toMatchObject({ major: 31, minor: 3, kind: 'block' });
    expect(['etc/passwd', 'etc/passwd-'].map((p) => entry(ex, p)?.kind).sort()).toEqual(['file', 'hardlink']);
    cleanup(ex.root);
  });

  it('extracts ext3 and ext4 (extents, 4 KiB blocks, 64-bit descriptors, hashed directories)', async () => {
    const ext3 = await extractWith(extHandler, mkfs('ext3.img', 'ext3', 1024, 4096));
    expect(ext3.chunk?.meta?.version).toBe('ext3');
    expectTree(ext3, files, { modes: true });
    const ext4Image = mkfs('ext4.img', 'ext4', 1024, 1200, ['64bit', 'dir_index', '^has_journal']);
    // e2fsck -D rebuilds directories as hash trees (mke2fs -d writes them linear).
    try {
      run('e2fsck', ['-fyD', ext4Image]);
    } catch {
      // exit status 1 = "file system modified", which is what -D does
    }
    expect(run('debugfs', ['-R', 'htree many', ext4Image]).toString()).toContain('Root node dump');
    const ext4 = await extractWith(extHandler, ext4Image);
    expect(ext4.chunk).toMatchObject({ end: 1200 * 1024, meta: { version: 'ext4', blockSize: 1024 } });
    const ext4k = await extractWith(extHandler, mkfs('ext4k.img', 'ext4', 4096, 300));
    expect(ext4k.chunk).toMatchObject({ end: 300 * 4096, meta: { version: 'ext4', blockSize: 4096 } });
    expectTree(ext4k, files, { modes: true });
    cleanup(ext4k.root);
    expectTree(ext4, files, { modes: true });
    expect(entry(ext4, 'bin/sh')?.linkTarget).toBe('busybox');
    cleanup(ext3.root, ext4.root);
  });

  it('reads meta_bg descriptor placement and bigalloc clusters', async () => {
    for (const [name, features, blocks, extra] of [
      // 256-block groups: 32 groups, so descriptors sit in two meta groups and inodes reach the second one.
      ['metabg.img', ['meta_bg', '^resize_inode', '^has_journal', '^flex_bg'], 8192, ['-g', '256']],
      ['bigalloc.img', ['bigalloc', '^has_journal'], 4096, ['-C', '4096']],
    ] as const) {
      const ex = await extractWith(extHandler, mkfs(name, 'ext4', 1024, blocks, [...features], [...extra]));
      expect(ex.chunk?.end, name).toBe(blocks * 1024);
      expectTree(ex, files, { modes: true });
      expect(ex.sink.problems, name).toEqual([]);
      cleanup(ex.root);
    }
  });

  it('reads ext4 inline data for small files and directories', async () => {
    const image = mkfs('inline.img', 'ext4', 1024, 2048, ['inline_data', '^has_journal']);
    expect(run('debugfs', ['-R', 'stat mid.txt', image]).toString()).toContain('Size of inline data: 110');
    const ex = await extractWith(extHandler, image);
    expectTree(ex, files, { modes: true });
    cleanup(ex.root);
  });

  it('rejects non-ext data quietly and reports a truncated image while keeping what is readable', async () => {
    expect(await extHandler.chunk(new BufferReader(noise(4096, 5)), 0)).toBeNull();
    // A superblock whose root inode is not a directory is a false positive, not a 1.2 MB chunk.
    const notRoot = mkfs('notroot.img', 'ext2', 1024, 1200);
    run('debugfs', ['-w', '-R', 'sif <2> mode 0100644', notRoot]);
    expect(await extHandler.chunk(new BufferReader(readFileSync(notRoot)), 0)).toBeNull();
    const full = readFileSync(mkfs('trunc.img', 'ext2', 1024, 1200));
    const cut = full.subarray(0, 600 * 1024);
    const ex = await extractWith(extHandler, cut);
    expect(ex.error).toBeUndefined();
    expect(ex.chunk?.end).toBe(cut.length);
    expect(ex.sink.problems.some((p) => p.message.includes('truncated'))).toBe(true);
    // The tree metadata sits at the start: passwd is there.
    expect(entry(ex, 'etc/passwd')?.kind).toBe('file');
    cleanup(ex.root);
  });

  it('survives byte flips, a lying root and a directory loop without crashing or hanging', async () => {
    const image = readFileSync(mkfs('fuzz.img', 'ext4', 1024, 1024, ['^has_journal']));
    await expectCorruptionsRefused(extHandler, image, 12, 40, 2048);
    // Superblock with an absurd block size: refused quietly.
    const bad = Buffer.from(image);
    bad.writeUInt32LE(20, 1024 + 24);
    expect((await extractWith(extHandler, bad)).chunk).toBeNull();
  });

  it('bounds a hostile block map: a triple-indirect pointer into random data and a lying size', async () => {
    const image = mkfs('hostile.img', 'ext2', 1024, 1200);
    run('debugfs', ['-w', '-R', 'sif /text.log block[TIND] 1100', image]);
    run('debugfs', ['-w', '-R', 'sif /text.log size 0x7fffffffff', image]);
    const bytes = readFileSync(image);
    noise(1024, 77).copy(bytes, 1100 * 1024);
    writeFileSync(image, bytes);
    const started = Date.now();
    const ex = await extractWith(extHandler, image);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(ex.error).toBeUndefined();
    expect(ex.sink.problems.some((p) => p.message.startsWith('text.log'))).toBe(true);
    expect(entry(ex, 'etc/passwd')?.kind).toBe('file');
    cleanup(ex.root);
  });

  it('replays committed journal transactions, honouring revokes', async () => {
    const image = mkfs('journal.img', 'ext4', 1024, 4096);
    const block = (path: string) => Number(run('debugfs', ['-R', `bmap ${path} 0`, image]).toString().trim());
    const passwdBlock = block('etc/passwd');
    const rcsBlock = block('etc/init.d/rcS');
    const newPasswd = Buffer.alloc(1024, 0x4a);
    Buffer.from('root:JOURNAL:0:0:r:/r:/bin/sh\n').copy(newPasswd);
    writeFileSync(join(work, 'passwd.blk'), newPasswd);
    writeFileSync(join(work, 'rcs.blk'), Buffer.alloc(1024, 0x52));
    // Three transactions: new passwd block; new rcS block; then a revoke of the rcS block.
    const script = `jo\njw -b ${passwdBlock} ${join(work, 'passwd.blk')}\njc\njo\njw -b ${rcsBlock} ${join(work, 'rcs.blk')}\njc\njo\njw -r ${rcsBlock}\njc\n`;
    run('debugfs', ['-w', '-f', '-', image], { input: Buffer.from(script) });
    const ex = await extractWith(extHandler, image);
    expect(ex.error).toBeUndefined();
    expect(ex.sink.problems.map((p) => p.message)).toEqual(['ext journal replayed: 3 committed transactions, 1 blocks']);
    const passwd = entry(ex, 'etc/passwd')?.kind === 'file' ? 'etc/passwd' : 'etc/passwd-';
    const original = files.find((f) => f.path === 'etc/passwd')!.content!;
    expect(readFileSync(join(ex.root, passwd))).toEqual(newPasswd.subarray(0, original.length));
    expect(readFileSync(join(ex.root, 'etc/init.d/rcS'), 'utf8')).toBe('#!/bin/sh\necho boot\n');
    cleanup(ex.root);
  });

  it('detects a directory that contains itself', async () => {
    const image = mkfs('loop.img', 'ext2', 1024, 1200);
    // debugfs: add a hard link to the root directory inside 'deep/a' (a loop no fsck-clean image has).
    run('debugfs', ['-w', '-R', 'ln / deep/a/loop', image]);
    const ex = await extractWith(extHandler, image);
    expect(ex.error).toBeUndefined();
    expect(ex.sink.problems.some((p) => p.message.includes('loop'))).toBe(true);
    expect(entry(ex, 'etc/passwd')?.kind).toBe('file');
    cleanup(ex.root);
  });
});

// FileIndex's kept contents: small files are read once (synchronously) and shared (a head alone is read without
// keeping the file); a failed read is not kept and reaches every way of reading; large files and files past the budget are read from disk each time.
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import picomatch from 'picomatch';
import { FileIndex, globsMatcher, pathMatcher } from '../../src/engine/file-index.js';
import { ReadScratch } from '../../src/engine/file-read.js';
import { sameMemory } from '../support/bytes.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'firmscope-file-index-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function drain(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.from(part as Buffer));
  return Buffer.concat(parts);
}

describe('FileIndex kept contents', () => {
  it('reads a small file once and hands the same bytes to every reader', async () => {
    await writeFile(join(dir, 'a'), 'hello world');
    const index = await FileIndex.fromDirectory(dir);
    const node = index.get('a')!;
    const whole = await index.read(node);
    expect(whole.toString()).toBe('hello world');
    // the file is gone from disk: every later read is served from what was kept
    await unlink(join(dir, 'a'));
    expect(await index.read(node)).toBe(whole);
    expect((await index.readRange(node, 6, 100)).toString()).toBe('world');
    const reader = await index.reader(node);
    expect((await reader.read(0, 5)).toString()).toBe('hello');
    await reader.close();
    expect((await drain(index.stream(node))).toString()).toBe('hello world');
  });

  it('reads a head alone, without keeping the file; once the file is kept, from what was kept', async () => {
    await writeFile(join(dir, 'a'), 'first version of the file');
    const index = await FileIndex.fromDirectory(dir);
    const node = index.get('a')!;
    expect((await index.head(node, 5)).toString()).toBe('first');
    // not kept by the head: a later whole read reads the disk (as it is now)
    await writeFile(join(dir, 'a'), 'other version of the file');
    const whole = await index.read(node);
    expect(whole.toString()).toBe('other version of the file');
    await unlink(join(dir, 'a'));
    expect((await index.head(node, 5)).toString()).toBe('other');
  });

  it("answers heads from the unpacker's, and a file its head holds whole, without opening it", async () => {
    await writeFile(join(dir, 'small'), 'whole file');
    await writeFile(join(dir, 'large'), Buffer.alloc(10_000, 'x'));
    const { nodes } = await FileIndex.fromDirectory(dir);
    const heads = new Map([['small', Buffer.from('whole file')], ['large', Buffer.alloc(4096, 'x')]]);
    const index = new FileIndex(dir, nodes, { heads });
    await unlink(join(dir, 'small'));
    await unlink(join(dir, 'large'));
    const [small, large] = [index.get('small')!, index.get('large')!];
    expect((await index.head(small, 8192)).toString()).toBe('whole file');
    expect((await index.read(small)).toString()).toBe('whole file');
    expect(await index.head(large, 4096)).toEqual(Buffer.alloc(4096, 'x'));
    // more than the unpacker kept: from the file (gone here)
    await expect(index.head(large, 8192)).rejects.toThrow(/ENOENT/);
  });

  it('does not keep a failed read: each caller gets the error, and a later read tries again', async () => {
    await writeFile(join(dir, 'b'), 'first');
    const index = await FileIndex.fromDirectory(dir);
    const node = index.get('b')!;
    await unlink(join(dir, 'b'));
    // a stream that is never consumed must not leave an unhandled rejection behind
    index.stream(node);
    await expect(index.read(node)).rejects.toThrow(/ENOENT/);
    await expect(index.readRange(node, 0, 4)).rejects.toThrow(/ENOENT/);
    await expect(drain(index.stream(node))).rejects.toThrow(/ENOENT/);
    await writeFile(join(dir, 'b'), 'again');
    expect((await index.read(node)).toString()).toBe('again');
  });

  it('reads files past the kept budget from disk each time', async () => {
    await writeFile(join(dir, 'c'), 'x'.repeat(100));
    await writeFile(join(dir, 'd'), 'y'.repeat(100));
    const walked = await FileIndex.fromDirectory(dir);
    const index = new FileIndex(dir, walked.nodes, { keptBytes: 150 });
    expect((await index.read(index.get('c')!)).length).toBe(100);
    expect((await index.read(index.get('d')!)).length).toBe(100);
    await writeFile(join(dir, 'c'), 'changed');
    await writeFile(join(dir, 'd'), 'changed');
    expect((await index.read(index.get('c')!)).length).toBe(100); // kept
    expect((await index.read(index.get('d')!)).toString()).toBe('changed'); // over the budget: read again
  });
});

describe('reads into a scratch buffer', () => {
  it('reads a file that is not kept into the scratch, each read over the last; a kept file is still its kept bytes', async () => {
    await writeFile(join(dir, 'kept'), 'k'.repeat(100));
    await writeFile(join(dir, 'big1'), 'a'.repeat(300));
    await writeFile(join(dir, 'big2'), 'b'.repeat(200));
    const walked = await FileIndex.fromDirectory(dir);
    const index = new FileIndex(dir, walked.nodes, { keptBytes: 150 });
    const scratch = new ReadScratch();
    const kept = await index.read(index.get('kept')!, scratch);
    expect(kept).toBe(await index.read(index.get('kept')!)); // the kept bytes, not a copy in the scratch
    const first = await index.read(index.get('big1')!, scratch);
    expect(first.toString()).toBe('a'.repeat(300));
    const second = await index.read(index.get('big2')!, scratch);
    expect(second.toString()).toBe('b'.repeat(200));
    // the same memory: the first file's bytes are overwritten, as the scratch's contract says
    expect(sameMemory(second, first)).toBe(true);
    expect(first.subarray(0, 200).toString()).toBe('b'.repeat(200));
    // without a scratch, a read is its own buffer
    expect(sameMemory(await index.read(index.get('big1')!), first)).toBe(false);
    expect((await index.readRange(index.get('big1')!, 290, 100, scratch)).toString()).toBe('a'.repeat(10));
  });

  it("gives a reader's readInto the scratch for a file that is not kept, and its kept bytes otherwise", async () => {
    await writeFile(join(dir, 'kept'), 'kept file');
    await writeFile(join(dir, 'big'), 'x'.repeat(100) + 'tail');
    const walked = await FileIndex.fromDirectory(dir);
    const index = new FileIndex(dir, walked.nodes, { keptBytes: 20 });
    const scratch = new ReadScratch();
    const reader = await index.reader(index.get('big')!, scratch);
    const piece = await reader.readInto(100, 50);
    expect(piece.toString()).toBe('tail');
    expect(sameMemory(piece, scratch.take(1))).toBe(true);
    expect(sameMemory(await reader.read(100, 50), piece)).toBe(false);
    await reader.close();
    await expect(reader.readInto(0, 1)).rejects.toThrow('read after close');
    const keptReader = await index.reader(index.get('kept')!, scratch);
    expect((await keptReader.readInto(5, 4)).toString()).toBe('file');
    expect(sameMemory(await keptReader.readInto(0, 4), scratch.take(1))).toBe(false);
  });
});

describe('pathMatcher', () => {
  const paths = [
    'passwd', '/etc/passwd', '/etc/passwd-', 'a.bin_extract/0-1.squashfs-v4/etc/passwd', '/etc/shadow', '/etc/.hidden/passwd',
    '/boot/config-5.4.0', '/boot/config', '/lib/modules/5.4/kernel/x.ko', '/lib/modules', '/usr/lib/libssl.so.1.1', '/usr/lib/libssl.a',
    '/etc/init.d/S50telnet', '/etc/rc.d/rc.local', '/etc/a/b/c', '/ETC/PASSWD', '/proc/config.gz',
  ];
  const globs = [
    '**/passwd', '**/passwd-', '**/etc/passwd', '**/boot/config-*', '**/lib/modules/**', '**/libssl.so*', '**/etc/init.d/*',
    '**/etc/rc.d/rc.*', '**/etc/*/b/c', '**/{passwd,shadow}', '**/proc/config?gz', '**/[ps]*wd', '**/.hidden/*', '**',
    '/etc/passwd', 'etc/**', '**/etc/@(passwd|shadow)', '**/*.ko', '!**/passwd', '!**/boot/config-*',
  ];
  it('matches exactly what picomatch matches', () => {
    for (const glob of globs) {
      const reference = picomatch(glob, { dot: true });
      const matcher = pathMatcher(glob);
      for (const path of paths) expect([glob, path, matcher(path)]).toEqual([glob, path, reference(path)]);
    }
    const any = globsMatcher(globs.slice(0, 6));
    const reference = picomatch(globs.slice(0, 6), { dot: true });
    for (const path of paths) expect([path, any(path)]).toEqual([path, reference(path)]);
  });
});

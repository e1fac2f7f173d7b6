// How the sink writes: buffers in one write, streams gathered or in batches, folders made once. Whichever way a
// file goes, what is on disk, its entry (size, sha256, head) and the bytes handed to the chunk preselection agree,
// and a failure leaves nothing behind.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChunkSelection } from '../../../src/engine/unpack/chunks.js';
import { Budget, resolveLimits } from '../../../src/engine/unpack/limits.js';
import { FileReader } from '../../../src/engine/unpack/reader.js';
import { DirectorySink, type Preselect } from '../../../src/engine/unpack/sink.js';

let dir: string;
let budget: Budget | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fs-sink-writes-'));
});
afterEach(async () => {
  budget?.dispose();
  await rm(dir, { recursive: true, force: true });
});

const MiB = 1024 * 1024;
const empty: ChunkSelection = { chunks: [], gaps: [], problems: [] };
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

function makeSink(preselect?: Preselect, root = join(dir, 'out')): DirectorySink {
  budget = new Budget(resolveLimits(64 * MiB, { maxTotalBytes: 64 * MiB }));
  return new DirectorySink(root, budget, { source: 'test', path: 'image' }, preselect);
}

/** Bytes that differ along the file, so a misplaced or truncated piece changes the hash. */
function pattern(size: number, seed: number): Buffer {
  const data = Buffer.alloc(size);
  for (let i = 0; i < size; i++) data[i] = (i * 31 + seed) & 0xff;
  return data;
}

function pieces(data: Buffer, size: number): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length; i += size) parts.push(data.subarray(i, i + size));
  return Readable.from(parts);
}

describe('DirectorySink: small and large files', () => {
  it("keeps files' first 4 KiB for the analysis while the unpack's allowance lasts, from buffers and streams", async () => {
    budget = new Budget(resolveLimits(64 * MiB, { maxTotalBytes: 64 * MiB }));
    const allowance = { left: 4096 + 100 + 4096 + 10 };
    const sink = new DirectorySink(join(dir, 'out'), budget, { source: 'test', path: 'image' }, undefined, undefined, allowance);
    const files: Array<[string, Buffer, 'buffer' | 'stream']> = [
      ['big', pattern(10_000, 1), 'buffer'],
      ['small', pattern(100, 2), 'buffer'],
      ['streamed', pattern(300_000, 3), 'stream'],
      ['past-the-allowance', pattern(5_000, 4), 'buffer'],
    ];
    for (const [path, data, how] of files) await sink.file(path, how === 'buffer' ? data : pieces(data, 1000));
    const entry = (path: string) => sink.entries.find((e) => e.path === path)!;
    expect(entry('big').analysisHead).toEqual(files[0]![1].subarray(0, 4096));
    expect(entry('small').analysisHead).toEqual(files[1]![1]);
    expect(entry('streamed').analysisHead).toEqual(files[2]![1].subarray(0, 4096));
    expect(entry('past-the-allowance').analysisHead).toBeUndefined();
    expect(allowance.left).toBe(10);
    for (const [path, data] of files) expect(entry(path).head).toEqual(data.subarray(0, 512));
  });

  it('writes buffers and streams on both sides of the batch size the same way', async () => {
    const seen = new Map<string, { sha256: string; onDisk: boolean }>();
    let sink!: DirectorySink;
    sink = makeSink(async (data, path) => {
      seen.set(path, { sha256: sha(data), onDisk: existsSync(join(sink.root, path)) });
      return empty;
    });
    const files: Array<[string, Buffer, 'buffer' | 'stream']> = [
      ['empty', Buffer.alloc(0), 'buffer'],
      ['etc/small', pattern(3000, 1), 'buffer'],
      ['etc/init.d/rcS', pattern(700, 2), 'stream'],
      ['lib/at-limit', pattern(MiB, 3), 'buffer'],
      ['lib/large', pattern(MiB + 1, 4), 'buffer'],
      ['lib/modules/large-stream', pattern(3 * MiB + 5, 5), 'stream'],
      ['usr/lib/small-stream', pattern(200_000, 6), 'stream'],
    ];
    for (const [path, data, how] of files) await sink.file(path, how === 'buffer' ? data : pieces(data, 128 * 1024));

    expect(sink.problems).toEqual([]);
    expect(sink.entries.map((e) => e.path)).toEqual(files.map(([path]) => path));
    for (const [path, data] of files) {
      const entry = sink.entries.find((e) => e.path === path)!;
      expect(entry).toMatchObject({ kind: 'file', size: data.length, sha256: sha(data) });
      expect(entry.head).toEqual(data.subarray(0, 512));
      expect(sha(await readFile(join(sink.root, path)))).toBe(sha(data));
    }
    // Every file written in one piece was preselected from its own bytes, once it was on disk.
    // A stream written in batches (over 1 MiB) is searched from disk later, by the driver.
    expect([...seen.keys()].sort()).toEqual(files.map(([path]) => path).filter((p) => p !== 'lib/modules/large-stream').sort());
    for (const [path, data] of files) {
      if (!seen.has(path)) continue;
      expect(seen.get(path)!.sha256).toBe(sha(data));
      expect(seen.get(path)!.onDisk).toBe(true);
    }
    expect(budget!.bytes).toBe(files.reduce((sum, [, data]) => sum + data.length, 0));
    expect(budget!.files).toBe(files.length);
  });

  it('keeps no file and no bytes when the preselection fails after a synchronous write', async () => {
    const sink = makeSink(async (_data, path) => {
      if (path === 'bad') throw new Error('selection failed');
      return empty;
    });
    await sink.file('good', pattern(100, 1));
    await expect(sink.file('bad', pattern(100, 2))).rejects.toThrow('selection failed');
    await expect(sink.file('bad', pieces(pattern(5000, 3), 1000))).rejects.toThrow('selection failed');
    expect(sink.entries.map((e) => e.path)).toEqual(['good']);
    expect(budget!.bytes).toBe(100);
    expect(budget!.files).toBe(1);
    await expect(stat(join(sink.root, 'bad'))).rejects.toThrow(/ENOENT/);
  });
});

describe('DirectorySink: ranges of a file on disk', () => {
  it('copies a range of a file read in pieces, the same bytes whatever its size', async () => {
    const image = pattern(3 * MiB + 777, 9);
    await writeFile(join(dir, 'image'), image);
    const reader = await FileReader.open(join(dir, 'image'));
    try {
      const sink = makeSink();
      const ranges: Array<[string, number, number]> = [
        ['small', 10, 5000],
        ['across-pieces', 65_000, 200_000],
        ['large', 1000, 3 * MiB + 700],
        ['to-the-end', 2 * MiB, image.length],
        ['empty', 500, 500],
      ];
      for (const [path, start, end] of ranges) await sink.copy(path, reader, start, end);
      for (const [path, start, end] of ranges) {
        const entry = sink.entries.find((e) => e.path === path)!;
        expect(entry).toMatchObject({ size: end - start, sha256: sha(image.subarray(start, end)) });
        expect((await readFile(join(sink.root, path))).equals(image.subarray(start, end))).toBe(true);
      }
    } finally {
      await reader.close();
    }
  });
});

describe('DirectorySink: folders', () => {
  it('makes each folder once, including parents made for a deep file, and records directory entries', async () => {
    const sink = makeSink();
    await sink.file('a/b/c/deep', Buffer.from('deep'));
    await sink.dir('a');
    await sink.dir('a/b');
    await sink.dir('a/b/e');
    await sink.file('a/b/e/f', Buffer.from('f'));
    await sink.dir('empty');
    expect(sink.entries.map((e) => [e.path, e.kind])).toEqual([
      ['a/b/c/deep', 'file'],
      ['a', 'directory'],
      ['a/b', 'directory'],
      ['a/b/e', 'directory'],
      ['a/b/e/f', 'file'],
      ['empty', 'directory'],
    ]);
    for (const folder of ['a', 'a/b', 'a/b/c', 'a/b/e', 'empty']) expect((await stat(join(sink.root, folder))).isDirectory()).toBe(true);
    expect(await readFile(join(sink.root, 'a/b/e/f'), 'utf8')).toBe('f');
  });

  it('records a folder the filesystem refuses as an error per entry, without throwing', async () => {
    const root = join(dir, 'not-a-folder');
    await writeFile(root, 'a file where the output folder should be');
    const sink = makeSink(undefined, root);
    await sink.dir('d');
    await sink.file('f', Buffer.from('f'));
    await sink.file('big', pattern(2 * MiB, 1));
    expect(sink.entries).toEqual([]);
    expect(sink.problems.map((p) => [p.kind, p.message.split(':')[0]])).toEqual([
      ['error', 'd'],
      ['error', 'f'],
      ['error', 'big'],
    ]);
    expect(sink.problems.every((p) => /ENOTDIR|EEXIST/.test(p.message))).toBe(true);
    expect(budget!.files).toBe(0);
    expect(budget!.bytes).toBe(0);
  });
});

// The sink's rules, on a real DirectorySink and Budget: unique paths for clashing names, one warning for absolute
// paths, files dropped (not truncated) when they do not fit in the byte budget, filesystem errors kept per entry.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Budget, resolveLimits, type Limits } from '../../../src/engine/unpack/limits.js';
import { BufferReader } from '../../../src/engine/unpack/reader.js';
import { DirectorySink } from '../../../src/engine/unpack/sink.js';

let dir: string;
let budget: Budget | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fs-sink-'));
});
afterEach(async () => {
  budget?.dispose();
  await rm(dir, { recursive: true, force: true });
});

function makeSink(limits: Partial<Limits> = {}): { sink: DirectorySink; budget: Budget } {
  budget = new Budget(resolveLimits(1024 * 1024, limits));
  return { sink: new DirectorySink(join(dir, 'out'), budget, { source: 'test', path: 'image' }), budget };
}

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Every file entry is on disk with its size and hash; every path is unique. */
async function expectEntriesOnDisk(sink: DirectorySink): Promise<void> {
  const paths = sink.entries.map((e) => e.path);
  expect(new Set(paths).size).toBe(paths.length);
  for (const entry of sink.entries) {
    const onDisk = join(sink.root, entry.path);
    if (entry.kind === 'directory') expect((await stat(onDisk)).isDirectory()).toBe(true);
    if (entry.kind !== 'file') continue;
    const data = await readFile(onDisk);
    expect(data.length).toBe(entry.size);
    expect(sha(data)).toBe(entry.sha256);
  }
}

function chunks(count: number, size: number): Readable {
  return Readable.from(Array.from({ length: count }, () => Buffer.alloc(size, 0x61)));
}

describe('DirectorySink: name clashes', () => {
  it('keeps a later entry with a taken name as name~N, with a warning naming both', async () => {
    const { sink } = makeSink();
    await sink.file('x', Buffer.from('first'));
    await sink.file('x', Buffer.from('second'));
    await sink.file('/x', Readable.from([Buffer.from('third')]));
    expect(sink.entries.map((e) => e.path)).toEqual(['x', 'x~1', 'x~2']);
    expect(await readFile(join(sink.root, 'x'), 'utf8')).toBe('first');
    expect(await readFile(join(sink.root, 'x~1'), 'utf8')).toBe('second');
    await expectEntriesOnDisk(sink);
    const clashes = sink.problems.filter((p) => p.message.startsWith('name clash'));
    expect(clashes).toHaveLength(2);
    expect(clashes[0]).toMatchObject({ kind: 'warning', message: expect.stringMatching(/file "x" kept as "x~1", as "x" is already a file/) });
  });

  it('puts a directory that clashes with a file under name~N, and the entries below it follow', async () => {
    const { sink } = makeSink();
    await sink.file('a', Buffer.from('file a'));
    await sink.file('a/b', Buffer.from('b'));
    await sink.dir('a');
    await sink.file('a/c', Buffer.from('c'));
    await sink.file('z', Buffer.from('z'));
    expect(sink.entries.map((e) => [e.path, e.kind])).toEqual([
      ['a', 'file'],
      ['a~1/b', 'file'],
      ['a~1', 'directory'],
      ['a~1/c', 'file'],
      ['z', 'file'],
    ]);
    expect(sink.problems.filter((p) => p.message.startsWith('name clash'))).toHaveLength(1);
    await expectEntriesOnDisk(sink);
  });

  it('keeps a file that clashes with a directory (explicit or made for its children) as name~N', async () => {
    const { sink } = makeSink();
    await sink.dir('d');
    await sink.file('d', Buffer.from('file d'));
    await sink.file('p/q', Buffer.from('q'));
    await sink.file('p', Buffer.from('file p'));
    await sink.dir('d'); // repeated directory: the same directory, no second entry
    sink.symlink('p/q', 'elsewhere');
    expect(sink.entries.map((e) => e.path)).toEqual(['d', 'd~1', 'p/q', 'p~1', 'p/q~1']);
    expect(sink.problems.map((p) => p.message)).toEqual([
      expect.stringContaining('file "d" kept as "d~1", as "d" is already a directory'),
      expect.stringContaining('file "p" kept as "p~1", as "p" is already a directory'),
      expect.stringContaining('symlink "p/q" kept as "p/q~1", as "p/q" is already a file'),
    ]);
    await expectEntriesOnDisk(sink);
  });

  it('records a filesystem error for one entry and goes on', async () => {
    const { sink, budget } = makeSink();
    await sink.file('n'.repeat(300), Buffer.from('name too long'));
    await sink.file('ok', Buffer.from('ok'));
    expect(sink.entries.map((e) => e.path)).toEqual(['ok']);
    expect(sink.problems).toEqual([expect.objectContaining({ kind: 'error', message: expect.stringContaining('ENAMETOOLONG') })]);
    expect(budget.files).toBe(1);
  });
});

describe('DirectorySink: a tree of folders made at once (dirs)', () => {
  it('makes nested folders in any order given, and a file written meanwhile waits for its folder', async () => {
    const { sink, budget } = makeSink();
    const made = sink.dirs([['a/b/c', { mode: 0o755 }], ['a'], ['a/b'], ['d']]);
    await sink.file('a/b/c/f', Buffer.from('inside'));
    await made;
    expect(sink.entries.map((e) => e.path).sort()).toEqual(['a', 'a/b', 'a/b/c', 'a/b/c/f', 'd']);
    expect(sink.entries.find((e) => e.path === 'a/b/c')?.meta).toEqual({ mode: 0o755 });
    expect(await readFile(join(sink.root, 'a/b/c/f'), 'utf8')).toBe('inside');
    await expectEntriesOnDisk(sink);
    expect(budget.files).toBe(5);
    expect(sink.problems).toEqual([]);
  });

  it('records a folder the filesystem refuses, gives its file back, and makes the others', async () => {
    const { sink, budget } = makeSink();
    await sink.dirs([['n'.repeat(300)], ['ok']]);
    expect(sink.entries.map((e) => e.path)).toEqual(['ok']);
    expect(sink.problems).toEqual([expect.objectContaining({ kind: 'error', message: expect.stringContaining('ENAMETOOLONG') })]);
    expect(budget.files).toBe(1);
  });
});

describe('DirectorySink: absolute paths', () => {
  it('stores them relative with one warning naming the first and the count', async () => {
    const { sink } = makeSink();
    await sink.file('/etc/passwd', Buffer.from('root'));
    await sink.dir('/var/empty');
    sink.symlink('/bin/sh', 'busybox');
    await sink.file('relative', Buffer.from('r'));
    expect(sink.entries.map((e) => e.path)).toEqual(['etc/passwd', 'var/empty', 'bin/sh', 'relative']);
    expect(sink.problems).toEqual([
      expect.objectContaining({ kind: 'warning', message: '3 absolute path(s) stored relative to the output folder, the first "/etc/passwd"' }),
    ]);
  });
});

describe('DirectorySink: byte budget', () => {
  it('drops a buffer too big for the bytes left, records it with its path and keeps the next', async () => {
    const { sink, budget } = makeSink({ maxTotalBytes: 1000 });
    await sink.file('small', Buffer.alloc(300));
    await sink.file('big', Buffer.alloc(800));
    await sink.file('after', Buffer.alloc(700));
    expect(sink.entries.map((e) => e.path)).toEqual(['small', 'after']);
    expect(sink.problems).toEqual([
      expect.objectContaining({ kind: 'limit', message: 'big: not extracted: its 800 bytes are more than the 700 bytes left of the extracted size limit of 1000 bytes' }),
    ]);
    expect(budget.bytes).toBe(1000);
    expect(budget.files).toBe(2);
    await expect(stat(join(sink.root, 'big'))).rejects.toThrow(/ENOENT/);
  });

  it('drops a stream that grows past the budget, deletes what was written and gives its bytes back', async () => {
    const { sink, budget } = makeSink({ maxTotalBytes: 3 * 1024 * 1024 });
    await sink.file('first', Buffer.alloc(1024));
    // 2 MiB goes to disk in batches before the budget runs out: the partial file must not stay or count.
    const bomb = chunks(64, 64 * 1024);
    await sink.file('bomb', bomb);
    await sink.file('after', chunks(4, 1024));
    expect(bomb.destroyed).toBe(true);
    expect(sink.entries.map((e) => e.path)).toEqual(['first', 'after']);
    expect(sink.problems).toEqual([expect.objectContaining({ kind: 'limit', message: expect.stringMatching(/^bomb: not extracted: it grew past the \d+ bytes left/) })]);
    expect(budget.bytes).toBe(1024 + 4096);
    await expect(stat(join(sink.root, 'bomb'))).rejects.toThrow(/ENOENT/);
    await expectEntriesOnDisk(sink);
  });

  it('drops a copied range too big for the budget without reading it, and frees its name', async () => {
    const { sink, budget } = makeSink({ maxTotalBytes: 100 });
    const reader = new BufferReader(Buffer.alloc(1000, 1), join(dir, 'input'));
    await sink.copy('range', reader, 0, 1000);
    await sink.copy('range', reader, 0, 10);
    expect(sink.entries.map((e) => [e.path, e.size])).toEqual([['range', 10]]);
    expect(sink.problems.map((p) => p.kind)).toEqual(['limit']);
    expect(budget.bytes).toBe(10);
  });

  it('gives back the bytes of a file whose data fails half-way (nothing kept, nothing counted)', async () => {
    const { sink, budget } = makeSink();
    async function* broken(): AsyncGenerator<Buffer> {
      yield Buffer.alloc(2 * 1024 * 1024);
      throw new Error('corrupt block');
    }
    await expect(sink.file('broken', broken())).rejects.toThrow('corrupt block');
    expect(budget.bytes).toBe(0);
    expect(budget.files).toBe(0);
    await expect(stat(join(sink.root, 'broken'))).rejects.toThrow(/ENOENT/);
  });
});

describe('the archive root', () => {
  it('a directory entry for the root itself ("./", ".", "/") is the output folder: no entry, no problem', async () => {
    const { sink } = makeSink();
    for (const raw of ['./', '.', '/', '']) await sink.dir(raw);
    await sink.dir('./etc/');
    expect(sink.problems).toEqual([]);
    expect(sink.entries.map((e) => e.path)).toEqual(['etc']);
  });

  it('a file, link or escaping entry with no name is still refused', async () => {
    const { sink } = makeSink();
    await sink.dir('../');
    sink.symlink('./', 'x');
    expect(sink.problems.map((p) => p.message)).toEqual([
      'refused entry: path escapes the output folder: "../"',
      'refused entry: empty path: "./"',
    ]);
  });
});


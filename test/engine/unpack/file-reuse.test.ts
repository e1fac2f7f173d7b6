// Files kept from an earlier scan (issue #15): the next version of a SquashFS image places a file whose stored
// blocks and decoded tail it has seen before from the store (a hard link) instead of decoding it, and a file that
// lives in a fragment block, once decoded, from the store when its content was seen before (a link instead of a new
// file, and no search for chunks when none were found in it), and so is an archive's member; the tree it gives is
// the tree a cold unpack gives. A tail that differs, a damaged store entry or a memo that fails to answer
// make the file decoded, never a wrong one placed. A fragment block stored as before is not decoded at all: its
// small files are placed by their piece of it, and a tail in it is compared by the hash the memo keeps.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileReuse, type StoredContent, type StoredFormMemo } from '../../../src/engine/unpack/file-reuse.js';
import { LocalFileStore, type ExtractedFileStore } from '../../../src/engine/unpack/file-store.js';
import { unpack, type UnpackResult } from '../../../src/engine/unpack/driver.js';
import { fragmentsToDecode } from '../../../src/engine/unpack/filesystems/squashfs/extract.js';
import type { FragmentPiece } from '../../../src/engine/unpack/filesystems/squashfs/stored-forms.js';
import { scan } from '../../../src/engine/scan.js';
import { MemoryCache, stable } from '../../support/memory-cache.js';
import { imageWorkspace, noise, run } from './filesystems/fs-image-harness.js';

const ws = imageWorkspace('file-reuse', 'mksquashfs');
afterAll(() => rmSync(ws.work, { recursive: true, force: true }));

/** A memo in memory that counts its lookups; `down` makes it fail. */
class MemoryMemo implements StoredFormMemo {
  readonly entries = new Map<string, StoredContent>();
  down = false;
  lookups = 0;
  /** Every key looked up, in order. */
  asked: string[] = [];
  async lookup(keys: readonly string[]): Promise<Map<string, StoredContent>> {
    this.lookups++;
    this.asked.push(...keys);
    if (this.down) throw new Error('down');
    return new Map(keys.flatMap((k) => (this.entries.has(k) ? [[k, this.entries.get(k)!] as const] : [])));
  }
  remember(key: string, content: StoredContent): void {
    this.entries.set(key, content);
  }
}

/** A store that lists the files it placed, by name. */
function recording(store: LocalFileStore): { store: ExtractedFileStore; placed: string[] } {
  const placed: string[] = [];
  return {
    placed,
    store: {
      place: (sha256, target) => store.place(sha256, target) && placed.push(target.slice(target.lastIndexOf('/') + 1)) > 0,
      keep: (sha256, path, size) => store.keep(sha256, path, size),
    },
  };
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const BIG = noise(300_000, 1); // two 128 KiB blocks and a tail
const SHARED_HEAD = noise(140_000, 2);

/** A SquashFS of a tree: `version` changes the small files and one big file's tail. */
function image(name: string, version: number): string {
  const src = join(ws.work, `src-${name}`);
  rmSync(src, { recursive: true, force: true });
  mkdirSync(join(src, 'bin'), { recursive: true });
  writeFileSync(join(src, 'bin', 'big.bin'), BIG);
  // the same first block in both versions, another tail in the second
  writeFileSync(join(src, 'bin', 'tail.bin'), Buffer.concat([SHARED_HEAD, Buffer.from(`tail of version ${version}\n`)]));
  for (let i = 0; i < 12; i++) writeFileSync(join(src, `small-${i}.txt`), `small file ${i} of version ${i % 3 === 0 ? version : 1}\n`);
  // a small container, the same in both versions: placed, and still unpacked (its content holds a chunk)
  writeFileSync(join(src, 'notes.gz'), gzipSync(Buffer.from('notes kept in a gzip stream\n'.repeat(20))));
  const out = join(ws.work, `${name}.squashfs`);
  run('mksquashfs', [src, out, '-comp', 'gzip', '-noappend', '-quiet', '-no-progress']);
  return out;
}

/** What a tree says of each node, in path order. */
const tree = (result: UnpackResult) =>
  result.files.map((f) => ({ path: f.path, kind: f.kind, size: f.size, sha256: f.sha256, type: f.type, head: f.head })).sort((a, b) => (a.path < b.path ? -1 : 1));

describe.runIf(ws.enabled)('reusing extracted files across versions of an image', () => {
  let n = 0;
  const work = () => join(ws.work, `w${n++}`);

  /**
   * Unpacks `first` with a new store and memo, then `next` with both (the store recording what it places), and
   * checks that the tree of `next` is the tree a cold unpack gives.
   */
  async function unpackBoth(first: string, next: string, storeName: string) {
    const store = new LocalFileStore(join(ws.work, storeName));
    const memo = new MemoryMemo();
    await unpack(first, work(), { reuse: new FileReuse(store, memo) });
    const seen = recording(store);
    const reuse = new FileReuse(seen.store, memo);
    const dir = work();
    const reused = await unpack(next, dir, { reuse });
    const cold = await unpack(next, work());
    expect(tree(reused)).toEqual(tree(cold));
    return { seen, reuse, dir, reused };
  }

  it('places a file stored alike from the store, decodes the others, and gives the cold tree', async () => {
    const first = image('v1', 1);
    const next = image('v2', 2);
    const { seen, reuse, dir, reused } = await unpackBoth(first, next, 'store-1');
    // big.bin is placed; tail.bin has the same blocks and another tail, so it is decoded; of the small files (all in
    // fragments) those of the same content are placed, the others (every third) written
    const unchanged = [1, 2, 4, 5, 7, 8, 10, 11].map((i) => `small-${i}.txt`);
    expect(seen.placed.sort()).toEqual(['big.bin', 'notes.gz', ...unchanged].sort());
    expect(reuse.placed).toBe(10);
    expect(reused.files.some((f) => f.path.includes('notes.gz') && f.depth > 1)).toBe(true);
    for (const name of unchanged) expect(statSync(join(dir, reused.files.find((f) => f.path.endsWith(`/${name}`))!.path)).nlink).toBeGreaterThan(1);
    const big = reused.files.find((f) => f.path.endsWith('/bin/big.bin'))!;
    expect(big.sha256).toBe(sha(BIG));
    expect(statSync(join(dir, big.path)).nlink).toBeGreaterThan(1);
    expect(readFileSync(join(dir, big.path)).equals(BIG)).toBe(true);
    const tail = reused.files.find((f) => f.path.endsWith('/bin/tail.bin'))!;
    expect(tail.sha256).toBe(sha(Buffer.concat([SHARED_HEAD, Buffer.from('tail of version 2\n')])));
  });

  it('decodes a file whose store entry is damaged or gone or cannot be placed, and unpacks as before when the memo fails', async () => {
    const first = image('d1', 1);
    const next = image('d2', 2);
    const storeDir = join(ws.work, 'store-2');
    const store = new LocalFileStore(storeDir);
    const memo = new MemoryMemo();
    await unpack(first, work(), { reuse: new FileReuse(store, memo) });
    const cold = tree(await unpack(next, work()));
    const kept = join(storeDir, sha(BIG));
    // a damaged entry (another size): not placed, decoded
    rmSync(kept);
    writeFileSync(kept, BIG.subarray(0, 1000));
    const damaged = new FileReuse(store, memo);
    expect(tree(await unpack(next, work(), { reuse: damaged }))).toEqual(cold);
    expect(damaged.placed).toBe(9); // the unchanged small files and notes.gz, not big.bin
    // gone: decoded (and kept again)
    rmSync(kept);
    const seen = recording(store);
    expect(tree(await unpack(next, work(), { reuse: new FileReuse(seen.store, memo) }))).toEqual(cold);
    // (tail.bin and the small files of this version were decoded and kept by the run before: placed now)
    expect(seen.placed).toContain('tail.bin');
    expect(seen.placed).not.toContain('big.bin');
    expect(readFileSync(kept).equals(BIG)).toBe(true);
    // a store that fails to give a file it holds: decoded
    const failing: ExtractedFileStore = {
      place: () => {
        throw Object.assign(new Error('refused'), { code: 'EACCES' });
      },
      keep: () => {},
    };
    expect(tree(await unpack(next, work(), { reuse: new FileReuse(failing, memo) }))).toEqual(cold);
    memo.down = true;
    expect(tree(await unpack(next, work(), { reuse: new FileReuse(store, memo) }))).toEqual(cold);
  });

  it('looks the files of fragment blocks up a few fragments at a time, and decodes only the fragments that changed', async () => {
    // twenty files of 100 kB: one fragment each (128 KiB blocks)
    const frags = (version: number) => {
      const src = join(ws.work, `src-frags-${version}`);
      rmSync(src, { recursive: true, force: true });
      mkdirSync(src, { recursive: true });
      for (let i = 0; i < 20; i++) writeFileSync(join(src, `f${String(i).padStart(2, '0')}.bin`), noise(100_000, i === 7 ? 1000 + version : 100 + i));
      const out = join(ws.work, `frags-${version}.squashfs`);
      run('mksquashfs', [src, out, '-comp', 'gzip', '-noappend', '-quiet', '-no-progress']);
      return out;
    };
    const first = frags(1);
    const next = frags(2);
    const memo = new MemoryMemo();
    const store = new LocalFileStore(join(ws.work, 'store-frags'));
    await unpack(first, work(), { reuse: new FileReuse(store, memo) });
    // the files with data blocks (none here), the pieces of fragments, then every fragment decoded, in batches of
    // 1, 2, 4, 8 and 5 fragments
    expect(memo.lookups).toBe(1 + 1 + 5);
    memo.lookups = 0;
    memo.asked = [];
    const reuse = new FileReuse(store, memo);
    const reused = await unpack(next, work(), { reuse });
    expect(tree(reused)).toEqual(tree(await unpack(next, work())));
    // only f07.bin's fragment is stored differently: it alone is decoded, and so its file alone has a content key
    expect(memo.lookups).toBe(1 + 1 + 1);
    expect(memo.asked.filter((key) => key.startsWith('content\0'))).toEqual([`content\0${sha(noise(100_000, 1002))}`]);
    expect(reuse.placed).toBe(19); // all but f07.bin, which changed
  });

  it("places a file whose tail's fragment is stored as before without decoding that fragment", async () => {
    // a big file (two blocks and a tail, packed into a fragment with -always-use-fragments: mksquashfs gives the tail
    // a fragment of its own here) and two small files, one of which changes (they share a fragment)
    const tree3 = (version: number) => {
      const src = join(ws.work, `src-tails-${version}`);
      rmSync(src, { recursive: true, force: true });
      mkdirSync(src, { recursive: true });
      writeFileSync(join(src, 'a-tails.bin'), noise(2 * 131_072 + 5_000, 7));
      writeFileSync(join(src, 'b-same.txt'), 'the same in both versions\n');
      writeFileSync(join(src, 'c-changed.bin'), noise(128_000, 50 + version));
      const out = join(ws.work, `tails-${version}.squashfs`);
      run('mksquashfs', [src, out, '-comp', 'gzip', '-noappend', '-quiet', '-no-progress', '-always-use-fragments']);
      return out;
    };
    const memo = new MemoryMemo();
    const store = new LocalFileStore(join(ws.work, 'store-tails'));
    await unpack(tree3(1), work(), { reuse: new FileReuse(store, memo) });
    memo.asked = [];
    const next = tree3(2);
    const seen = recording(store);
    const reuse = new FileReuse(seen.store, memo);
    const reused = await unpack(next, work(), { reuse });
    expect(tree(reused)).toEqual(tree(await unpack(next, work())));
    // a-tails.bin by its blocks and its tail's piece (the hash the memo keeps), b-same.txt by its content
    expect(seen.placed.sort()).toEqual(['a-tails.bin', 'b-same.txt']);
    // b-same.txt shares its fragment with c-changed.bin: that fragment is decoded, and both files get a content key
    expect(memo.asked.filter((key) => key.startsWith('content\0')).sort()).toEqual([`content\0${sha(Buffer.from('the same in both versions\n'))}`, `content\0${sha(noise(128_000, 52))}`].sort());
  });

  it('trims the store to its budget, oldest entries first', () => {
    const dir = join(ws.work, 'store-3');
    const store = new LocalFileStore(dir, 250_000);
    const a = join(ws.work, 'a.bin');
    const b = join(ws.work, 'b.bin');
    writeFileSync(a, noise(200_000, 3));
    writeFileSync(b, noise(200_000, 4));
    store.keep(sha(readFileSync(a)), a, 200_000);
    store.keep(sha(readFileSync(b)), b, 200_000);
    // b kept later (its file is newer)
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, sha(readFileSync(b))), later, later);
    expect(store.trim()).toEqual({ walked: true, files: 1, bytes: 200_000, removed: 1 });
    // nothing added since: the store is not walked again; a file added since: it is (the ledger is over the budget)
    expect(store.trim()).toBeUndefined();
    store.keep(sha(readFileSync(b)), b, 200_000); // already there: adds nothing
    expect(store.trim()).toBeUndefined();
    store.keep(sha(readFileSync(a)), a, 200_000);
    expect(store.trim()).toEqual({ walked: true, files: 1, bytes: 200_000, removed: 1 });
    const target = join(ws.work, 'placed.bin');
    expect(store.place(sha(readFileSync(a)), target)).toBe(false);
    expect(store.place(sha(readFileSync(b)), target)).toBe(true);
    expect(store.place('not-a-hash', join(ws.work, 'x'))).toBe(false);
  });

  it('keeps files in one flat folder, and trim removes the shard folders of the earlier layout', () => {
    const dir = join(ws.work, 'store-flat');
    const legacy = join(dir, 'ab');
    mkdirSync(legacy, { recursive: true });
    writeFileSync(join(legacy, 'ab'.padEnd(64, '0')), 'old layout');
    const store = new LocalFileStore(dir);
    const a = join(ws.work, 'flat-a.bin');
    writeFileSync(a, noise(1000, 5));
    store.keep(sha(readFileSync(a)), a, 1000);
    expect(readdirSync(dir).sort()).toEqual(['ab', sha(readFileSync(a))].sort());
    // a folder that was there before, without a ledger: walked
    expect(store.trim()).toEqual({ walked: true, files: 1, bytes: 1000, removed: 0 });
    expect(readdirSync(dir).sort()).toEqual(['.size', sha(readFileSync(a))]);
  });

  it('keeps a ledger of its size and walks only when the ledger says over budget, is unreadable or long', () => {
    const dir = join(ws.work, 'store-ledger');
    const files = Array.from({ length: 80 }, (_, k) => {
      const path = join(ws.work, `ledger-${k}.bin`);
      const data = noise(1000, 100 + k);
      writeFileSync(path, data);
      return { path, sha256: sha(data) };
    });
    const keep = (store: LocalFileStore, k: number) => store.keep(files[k]!.sha256, files[k]!.path, 1000);
    const ledger = () => readFileSync(join(dir, '.size'), 'latin1');
    // a folder this store made: it held nothing, so its size is what was added, without a walk
    const store = new LocalFileStore(dir, 10_000);
    keep(store, 0);
    keep(store, 1);
    expect(store.trim()).toEqual({ walked: false, bytes: 2000 });
    keep(store, 2);
    expect(store.trim()).toEqual({ walked: false, bytes: 3000 });
    expect(ledger()).toBe('2000\n1000\n');
    // another store on the same folder (another scan) reads the ledger
    const other = new LocalFileStore(dir, 10_000);
    keep(other, 3);
    expect(other.trim()).toEqual({ walked: false, bytes: 4000 });
    // over the budget by the ledger: walked, the oldest removed, the ledger written anew with the exact size
    for (let k = 4; k < 12; k++) keep(other, k);
    const result = other.trim();
    expect(result).toMatchObject({ walked: true, bytes: 10_000, files: 10, removed: 2 });
    expect(ledger()).toBe('10000\n');
    // an unreadable ledger: walked
    writeFileSync(join(dir, '.size'), 'not a size\n');
    const small = new LocalFileStore(dir, 1_000_000);
    keep(small, 12);
    expect(small.trim()).toMatchObject({ walked: true, files: 11, bytes: 11_000 });
    // 63 trims add a line each (the walk's line and these: LEDGER_LINES); the next one walks and writes the exact
    // size, which no longer counts an entry removed by other means (the ledger erred high)
    for (let k = 13; k < 76; k++) {
      keep(small, k);
      expect(small.trim()).toMatchObject({ walked: false, bytes: (k - 1) * 1000 });
    }
    expect(ledger().split('\n').filter(Boolean)).toHaveLength(64);
    rmSync(join(dir, files[12]!.sha256));
    keep(small, 76);
    expect(small.trim()).toEqual({ walked: true, files: 74, bytes: 74_000, removed: 0 });
    expect(ledger()).toBe('74000\n');
    // a folder the store made is known empty only until its first trim: a ledger lost later makes the next one walk
    const fresh = new LocalFileStore(join(ws.work, 'store-fresh'), 1_000_000);
    fresh.keep(files[0]!.sha256, files[0]!.path, 1000);
    expect(fresh.trim()).toEqual({ walked: false, bytes: 1000 });
    rmSync(join(ws.work, 'store-fresh', '.size'));
    fresh.keep(files[1]!.sha256, files[1]!.path, 1000);
    expect(fresh.trim()).toEqual({ walked: true, files: 2, bytes: 2000, removed: 0 });
  });

  it('a scan of the next version with the cache and the store gives the JSON of a cold scan', async () => {
    const first = image('s1', 1);
    const next = image('s2', 2);
    const cache = new MemoryCache();
    const fileStore = new LocalFileStore(join(ws.work, 'store-4'));
    await scan(first, { workDir: work(), analysisCache: cache, fileStore });
    const reused = await scan(next, { workDir: work(), analysisCache: cache, fileStore });
    const cold = await scan(next, { workDir: work() });
    expect(stable(reused)).toBe(stable(cold));
    expect(reused.summary?.cache?.filesReused).toBeGreaterThan(0);
  }, 120_000);

  it("places an archive's members from the store by their content, and still unpacks one that holds a chunk", async () => {
    const text = Buffer.from('the same member in both archives\n'.repeat(40));
    const packed = gzipSync(Buffer.from('a gzip stream inside a member\n'.repeat(30)));
    const large = noise(1024 * 1024 + 10, 3); // over 1 MiB: written as before, not keyed by its content
    const first = join(ws.work, 'first.a');
    const next = join(ws.work, 'next.a');
    writeFileSync(first, arArchive({ 'same.txt': text, 'packed.gz': packed, 'large.bin': large, 'changed.txt': Buffer.from('version 1\n') }));
    writeFileSync(next, arArchive({ 'same.txt': text, 'packed.gz': packed, 'large.bin': large, 'changed.txt': Buffer.from('version 2\n') }));
    const { seen, dir, reused } = await unpackBoth(first, next, 'store-ar');
    expect(seen.placed.sort()).toEqual(['packed.gz', 'same.txt']);
    expect(reused.files.some((f) => f.path.includes('packed.gz_extract/'))).toBe(true);
    const same = reused.files.find((f) => f.path.endsWith('/same.txt'))!;
    expect(statSync(join(dir, same.path)).nlink).toBeGreaterThan(1);
    expect(readFileSync(join(dir, same.path)).equals(text)).toBe(true);
  });
});

/** A System V ar archive of these members (each 60-byte header, data padded to even length). */
function arArchive(members: Record<string, Buffer>): Buffer {
  const parts: Buffer[] = [Buffer.from('!<arch>\n', 'latin1')];
  for (const [name, data] of Object.entries(members)) {
    const field = (value: string, width: number) => value.padEnd(width, ' ');
    const header = `${field(`${name}/`, 16)}${field('0', 12)}${field('0', 6)}${field('0', 6)}${field('100644', 8)}${field(String(data.length), 10)}\x60\n`;
    parts.push(Buffer.from(header, 'latin1'), data);
    if (data.length % 2) parts.push(Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

describe('fragmentsToDecode', () => {
  const file = (key: string, fragment: number, fileSize: number, blocks = 0) => ({
    key,
    inode: { kind: 'file' as const, blocksStart: 0, fileSize, fragment, fragmentOffset: 0, blockSizes: Array<number>(blocks).fill(100), mode: 0o644, uid: 0, gid: 0, mtime: 0 },
  });
  const piece = (sha256: string) => ({ key: `piece-${sha256}`, known: { sha256, chunkFree: true } });

  it('decodes a fragment with a piece the memo does not know, or with the tail of a file not known with that tail', () => {
    const files = [
      file('small-known', 0, 10),
      file('small-unknown', 1, 10),
      file('tail-known', 2, 1024 + 10, 1), // one 1 KiB block and a 10-byte tail
      file('tail-other', 3, 1024 + 10, 1),
      file('tail-of-unknown-file', 4, 1024 + 10, 1),
      file('no-tail', 5, 1024, 1), // a whole block, no piece of fragment 5
      file('no-fragment', -1, 1024, 1),
    ];
    const known = new Map<string, { known?: { tail?: string } }>([
      ['tail-known', { known: { tail: 't2' } }],
      ['tail-other', { known: { tail: 'an earlier tail' } }],
      ['tail-of-unknown-file', {}],
    ]);
    const pieces = new Map<string, FragmentPiece>([
      ['small-known', piece('s0')],
      ['small-unknown', { key: 'piece-s1' }],
      ['tail-known', piece('t2')],
      ['tail-other', piece('t3')],
      ['tail-of-unknown-file', piece('t4')],
    ]);
    expect([...fragmentsToDecode(1024, files, known, pieces)].sort()).toEqual([1, 3, 4]);
  });
});

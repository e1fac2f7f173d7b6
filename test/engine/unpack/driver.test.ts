import { mkdtemp, readFile, rm, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unpack } from '../../../src/engine/unpack/driver.js';
import { FormatError } from '../../../src/engine/format-error.js';
import type { Handler, Sink } from '../../../src/engine/unpack/handler.js';
import { box, box as box2, boxHandler } from './driver-helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fs-driver-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(data: Buffer, handlers: Handler[], limits = {}) {
  const image = join(dir, 'image.bin');
  await writeFile(image, data);
  return unpack(image, join(dir, 'out'), { handlers, limits });
}

describe('unpack driver', () => {
  it('extracts a chunk covering the whole file into <path>_extract/ and recurses', async () => {
    const result = await run(box(box('#!/bin/sh\necho hi\n')), [boxHandler()]);
    const paths = result.files.map((f) => f.path);
    expect(paths).toEqual(['image.bin', 'image.bin_extract/payload', 'image.bin_extract/payload_extract/payload']);
    const leaf = result.files[2]!;
    expect(leaf).toMatchObject({ type: 'script', format: 'box', parent: 'image.bin_extract/payload', depth: 2, fsPath: '/payload', mode: 0o644 });
    expect(await readFile(join(dir, 'out', leaf.path), 'utf8')).toBe('#!/bin/sh\necho hi\n');
    expect(result.unknownChunks).toEqual([]);
    expect(result.stats.formats).toEqual({ box: 2 });
    const written = JSON.parse(await readFile(join(dir, 'out', 'files.json'), 'utf8'));
    expect(written).toEqual(result.files);
  });

  it("keeps each file's first 256 bytes (base64) for a hex view, the image's too", async () => {
    const big = Buffer.from(Array.from({ length: 700 }, (_, i) => (i * 7) % 256));
    const image = box(big);
    const result = await run(image, [boxHandler()]);
    const [root, payload] = result.files;
    expect(Buffer.from(root!.head!, 'base64')).toEqual(image.subarray(0, 256));
    expect(Buffer.from(payload!.head!, 'base64')).toEqual(big.subarray(0, 256));
    await rm(join(dir, 'out'), { recursive: true, force: true });
    const small = await run(box('tiny'), [boxHandler()]);
    expect(Buffer.from(small.files[1]!.head!, 'base64').toString()).toBe('tiny');
  });

  it('carves chunks at any offset and records the gaps as unknown chunks', async () => {
    const data = Buffer.concat([Buffer.alloc(100, 0xaa), box('first'), Buffer.alloc(10, 0xbb), box('second'), Buffer.alloc(5)]);
    const result = await run(data, [boxHandler()]);
    expect(result.files.slice(1).map((f) => f.path)).toEqual([
      'image.bin_extract/100-113.box/payload',
      'image.bin_extract/123-137.box/payload',
    ]);
    expect(result.files[1]!.offset).toBe(100);
    expect(result.unknownChunks).toEqual([
      { path: 'image.bin', offset: 0, size: 100 },
      { path: 'image.bin', offset: 113, size: 10 },
      { path: 'image.bin', offset: 137, size: 5 },
    ]);
  });

  it('skips candidates inside an accepted chunk and prefers higher confidence at one start', async () => {
    const inner = box('inner');
    const data = box(Buffer.concat([Buffer.from('xx'), inner]));
    const low = boxHandler({ id: 'low', confidence: 10, entryName: 'low' });
    const high = boxHandler({ id: 'high', confidence: 90, entryName: 'high' });
    const result = await run(data, [low, high]);
    // One chunk at 0 (high wins); the inner box is found only by recursing into the payload.
    expect(result.files[1]!.path).toBe('image.bin_extract/high');
    expect(result.stats.formats).toEqual({ high: 2 });
  });

  it('records corrupt chunks and handler bugs as problems and goes on', async () => {
    const truncated = Buffer.concat([box('ok'), Buffer.from('BOX!'), Buffer.from([0xff, 0xff, 0, 0]), Buffer.from('tail')]);
    const buggy: Handler = {
      ...boxHandler({ id: 'buggy' }),
      magics: [{ bytes: Buffer.from('tail') }],
      async chunk() {
        throw new TypeError('boom');
      },
    };
    const result = await run(truncated, [boxHandler(), buggy]);
    expect(result.files.map((f) => f.path)).toContain('image.bin_extract/0-10.box/payload');
    expect(result.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'box', kind: 'error', offset: 10, message: expect.stringContaining('runs past the end') }),
        expect.objectContaining({ source: 'buggy', kind: 'error', message: expect.stringContaining('handler bug: buggy at offset 18: boom') }),
      ]),
    );
  });

  it('reports progress through the image, only when it changes, ending at 100', async () => {
    const image = join(dir, 'image.bin');
    await writeFile(image, Buffer.concat([box('a'.repeat(100)), Buffer.alloc(100), box('b'.repeat(100))]));
    const seen: number[] = [];
    await unpack(image, join(dir, 'out'), { handlers: [boxHandler()], onProgress: (p) => seen.push(p.percent) });
    expect(seen.at(-1)).toBe(100);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.some((p) => p > 0 && p < 100)).toBe(true);
  });

  it('honours onlyAtStart', async () => {
    const weak = boxHandler({ id: 'weak', onlyAtStart: true });
    expect((await run(Buffer.concat([Buffer.from('..'), box('x')]), [weak])).files).toHaveLength(1);
    expect((await run(box('x'), [weak])).files).toHaveLength(2);
  });

  it('refuses path escapes and keeps writes inside the output folder', async () => {
    const evil = boxHandler({
      async extract(reader, chunk, sink) {
        await sink.file('../../escaped', Buffer.from('no'));
        await sink.file('/etc/abs', Buffer.from('abs'));
        sink.symlink('link', '/etc/passwd');
      },
    });
    const result = await run(box('x'), [evil]);
    expect(await readdir(dir)).toEqual(expect.not.arrayContaining(['escaped']));
    expect(result.files.map((f) => [f.path, f.kind, f.linkTarget])).toEqual([
      ['image.bin', 'file', undefined],
      ['image.bin_extract/etc/abs', 'file', undefined],
      ['image.bin_extract/link', 'symlink', '/etc/passwd'],
    ]);
    expect(result.problems.some((p) => p.message.includes('escapes the output folder'))).toBe(true);
  });

  it('stops at the depth limit and says so', async () => {
    let data = box('leaf');
    for (let i = 0; i < 5; i++) data = box(data);
    const result = await run(data, [boxHandler()], { maxDepth: 3 });
    expect(Math.max(...result.files.map((f) => f.depth))).toBe(3);
    expect(result.problems).toContainEqual(expect.objectContaining({ kind: 'limit', message: expect.stringContaining('depth limit of 3') }));
  });

  it('stops at the byte and file limits and keeps what was extracted', async () => {
    const big = await run(box(Buffer.alloc(5000)), [boxHandler()], { maxTotalBytes: 1000 });
    expect(big.files).toHaveLength(1);
    expect(big.problems).toContainEqual(expect.objectContaining({ kind: 'limit', message: expect.stringContaining('extracted size limit') }));
    const many = await run(Buffer.concat([box('a'), box('b'), box('c')]), [boxHandler()], { maxFiles: 2 });
    expect(many.files).toHaveLength(3);
    expect(many.problems).toContainEqual(expect.objectContaining({ kind: 'limit', message: expect.stringContaining('file count limit of 2') }));
  });

  it('stops at the time limit', async () => {
    const slow = boxHandler({
      async extract(reader, chunk, sink) {
        await new Promise((r) => setTimeout(r, 200));
        await sink.file('late', Buffer.from('x'));
      },
    });
    const result = await run(box('x'), [slow], { timeoutMs: 50 });
    expect(result.files).toHaveLength(1);
    expect(result.problems).toContainEqual(expect.objectContaining({ kind: 'limit', message: expect.stringContaining('time limit') }));
  });

  it('does not re-extract identical content in one chain (loop)', async () => {
    // A handler whose output is the file itself: without loop protection it would recurse to the depth limit.
    const mirror = boxHandler({
      async extract(reader, chunk, sink) {
        await sink.copy('same', reader, chunk.start, chunk.end);
      },
    });
    const result = await run(box('x'), [mirror]);
    expect(result.files).toHaveLength(2);
    expect(result.problems).toContainEqual(expect.objectContaining({ kind: 'skipped', message: expect.stringContaining('loop') }));
  });

  it('carves a recognised-only chunk as a raw file', async () => {
    const recognised = boxHandler({ id: 'raw', extract: undefined });
    const result = await run(Buffer.concat([Buffer.alloc(4), box('abc')]), [recognised]);
    expect(result.files.slice(1).map((f) => [f.path, f.size])).toEqual([['image.bin_extract/4-15.raw', 11]]);
  });

  it('fails a corrupt chunk quietly when the handler rejects with FormatError during extraction', async () => {
    const failing = boxHandler({
      async extract(reader, chunk, sink) {
        await sink.file('part', Buffer.from('kept'));
        throw new FormatError('bad block');
      },
    });
    const result = await run(box('x'), [failing]);
    expect(result.files.map((f) => f.path)).toContain('image.bin_extract/part');
    expect(result.problems).toContainEqual(expect.objectContaining({ source: 'box', kind: 'error', message: 'bad block' }));
  });
  it('lists the ranges of encoded chunks extracted whole, for the analysis to pass over', async () => {
    const data = Buffer.concat([Buffer.alloc(100, 0xaa), box('first'), Buffer.alloc(10, 0xbb), box('second')]);
    const encoded = await run(data, [boxHandler({ encoded: true })]);
    expect(encoded.encodedRanges).toEqual(new Map([['image.bin', [[100, 113], [123, 137]]]]));
    await rm(join(dir, 'out'), { recursive: true, force: true });
    // a compression handler is encoded by its kind; an archive is not; a chunk that failed is never listed
    expect((await run(data, [boxHandler({ kind: 'compression' })])).encodedRanges.get('image.bin')).toEqual([[100, 113], [123, 137]]);
    await rm(join(dir, 'out'), { recursive: true, force: true });
    expect((await run(data, [boxHandler()])).encodedRanges).toEqual(new Map());
    await rm(join(dir, 'out'), { recursive: true, force: true });
    const failing = boxHandler({ encoded: true, extract: async () => { throw new FormatError('bad block'); } });
    expect((await run(data, [failing])).encodedRanges).toEqual(new Map());
  });

  it('hands the analysis the first 4 KiB of each file, and types a file from its first 512 bytes', async () => {
    // text for 512 bytes, then a NUL: typed as text from the first 512 bytes, as before the longer heads
    const payload = Buffer.concat([Buffer.alloc(600, 'a'), Buffer.alloc(1), Buffer.alloc(5000, 'b')]);
    const result = await run(box(payload), [boxHandler()]);
    const child = result.files[1]!;
    expect(child.type).toBe('text');
    expect(result.heads.get(child.path)).toEqual(payload.subarray(0, 4096));
    expect(result.heads.has('image.bin')).toBe(false); // the image is read by the caller anyway
  });

  it("searches a written file while its container's extraction goes on", async () => {
    let searched = false;
    const box = boxHandler({
      async chunk(reader, start) {
        searched = true;
        return boxHandler().chunk(reader, start);
      },
    });
    let seenDuringExtraction = false;
    // streamed, and larger than the sink gathers in memory (1 MiB): the driver searches it from disk
    const inner = box2(Buffer.alloc(1536 * 1024, 0x41));
    const pieces = [inner.subarray(0, 1024 * 1024), inner.subarray(1024 * 1024)];
    const pack = packHandler(async (sink) => {
      await sink.file('inner.box', Readable.from(pieces));
      for (let i = 0; i < 200 && !searched; i++) await new Promise((resolve) => setTimeout(resolve, 1));
      seenDuringExtraction = searched;
      await sink.file('after', Buffer.from('written after the search'));
    });
    const result = await run(PACK_IMAGE, [pack, box], { maxTotalBytes: 8 * 1024 * 1024 });
    expect(seenDuringExtraction).toBe(true);
    expect(result.files.map((f) => f.path)).toEqual([
      'image.bin',
      'image.bin_extract/inner.box',
      'image.bin_extract/after',
      'image.bin_extract/inner.box_extract/payload',
    ]);
  });

  it("extracts what a file holds only after its container's extraction, so a later entry keeps its name", async () => {
    // the container's own 'inner.box_extract' comes after 'inner.box' has been searched: the box's folder is the
    // next free name, as when files are unpacked one after the other
    const pack = packHandler(async (sink) => {
      await sink.file('inner.box', box2('boxed'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await sink.dir('inner.box_extract');
      await sink.file('inner.box_extract/own', Buffer.from("the container's own file"));
    });
    const result = await run(PACK_IMAGE, [pack, boxHandler()]);
    const paths = result.files.map((f) => f.path);
    expect(paths).toContain('image.bin_extract/inner.box_extract/own');
    expect(paths).toContain('image.bin_extract/inner.box_extract-2/payload');
    expect(await readFile(join(dir, 'out', 'image.bin_extract/inner.box_extract/own'), 'utf8')).toBe("the container's own file");
    expect(await readFile(join(dir, 'out', 'image.bin_extract/inner.box_extract-2/payload'), 'utf8')).toBe('boxed');
  });
});

/** An image the pack handler below takes whole. */
const PACK_IMAGE = Buffer.concat([Buffer.from('PACK'), Buffer.alloc(60)]);

/** A container format of the tests: a file starting with 'PACK' is one chunk, which `extract` writes out as it likes. */
function packHandler(extract: (sink: Sink) => Promise<void>): Handler {
  return {
    id: 'pack',
    kind: 'archive',
    doc: { title: 'test pack', references: [] },
    magics: [{ bytes: Buffer.from('PACK') }],
    onlyAtStart: true,
    async chunk(reader) {
      return { start: 0, end: reader.size };
    },
    extract: (_reader, _chunk, sink) => extract(sink),
  };
}

import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Analyzer } from '../../src/engine/analyzer.js';
import { scan } from '../../src/engine/scan.js';
import { box, boxHandler } from './unpack/driver-helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fs-scan-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('scan', () => {
  it('hashes, unpacks, runs analyzers in order and contains a crashing one', async () => {
    const data = box('#!/bin/sh\n');
    const image = join(dir, 'fw.bin');
    await writeFile(image, data);
    const seen: string[] = [];
    const analyzers: Analyzer[] = [
      {
        id: 'lister',
        phase: 'inventory',
        async run(ctx) {
          seen.push(...ctx.index.glob('**/payload').map((n) => n.path));
          const node = ctx.index.get('fw.bin_extract/payload')!;
          ctx.components.push({ ref: 'sh@', name: 'sh', type: 'file', confidence: 1, paths: [node.path], evidence: [], foundBy: ['lister'] });
          expect((await ctx.index.read(node)).toString()).toBe('#!/bin/sh\n');
        },
      },
      { id: 'crasher', phase: 'crypto', run: async () => { throw new Error('kaput'); } },
      { id: 'after', phase: 'rules', run: async (ctx) => { seen.push(`after saw ${ctx.components.length}`); } },
    ];
    const phases: string[] = [];
    const result = await scan(image, { workDir: join(dir, 'work'), analyzers, handlers: [boxHandler()], onProgress: (p) => phases.push(p.phase) });
    expect(result.image).toEqual({
      fileName: 'fw.bin',
      size: data.length,
      type: 'data',
      hashes: {
        sha256: createHash('sha256').update(data).digest('hex'),
        sha1: createHash('sha1').update(data).digest('hex'),
        md5: createHash('md5').update(data).digest('hex'),
      },
    });
    expect(seen).toEqual(['fw.bin_extract/payload', 'after saw 1']);
    expect(result.files.map((f) => f.path)).toEqual(['fw.bin', 'fw.bin_extract/payload']);
    expect(result.problems).toContainEqual(expect.objectContaining({ source: 'crasher', kind: 'error', message: 'analyzer failed: kaput' }));
    expect(result.stats).toMatchObject({ filesExtracted: 1, bytesExtracted: 10, formats: { box: 1 } });
    expect(phases).toEqual(expect.arrayContaining(['hash', 'unpack', 'inventory', 'crypto', 'rules']));
  });

  it("takes the image's digests from the caller when given, and computes them when the caller has none", async () => {
    const data = box('#!/bin/sh\n');
    const image = join(dir, 'fw.bin');
    await writeFile(image, data);
    const given = { sha256: 'a'.repeat(64), sha1: 'b'.repeat(40), md5: 'c'.repeat(32) };
    const taken = await scan(image, { workDir: join(dir, 'work-given'), analyzers: [], handlers: [boxHandler()], imageHashes: Promise.resolve(given) });
    expect(taken.image.hashes).toEqual(given);
    const computed = await scan(image, { workDir: join(dir, 'work-none'), analyzers: [], handlers: [boxHandler()], imageHashes: Promise.resolve(undefined) });
    expect(computed.image.hashes.sha256).toBe(createHash('sha256').update(data).digest('hex'));
    expect(computed.image.hashes.md5).toBe(createHash('md5').update(data).digest('hex'));
  });

  it('rejects when cancelled', async () => {
    const image = join(dir, 'fw.bin');
    await writeFile(image, box('x'));
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(scan(image, { workDir: join(dir, 'work'), signal: controller.signal, handlers: [boxHandler()], analyzers: [] })).rejects.toThrow('cancelled');
  });

  it('starts the stages that need only the files before the first stage runs, and not when the image is replayed', async () => {
    const image = join(dir, 'fw.bin');
    await writeFile(image, box('#!/bin/sh\n'));
    const events: string[] = [];
    const analyzers: Analyzer[] = [
      { id: 'first', phase: 'inventory', run: async () => void events.push('first runs') },
      {
        id: 'early',
        phase: 'malicious code',
        start: (ctx) => void events.push(`early starts with ${ctx.index.files().length} file(s), ${ctx.components.length} component(s)`),
        run: async () => void events.push('early runs'),
      },
    ];
    const entries = new Map<string, string>();
    const cache = {
      get: async (keys: readonly string[]) => new Map(keys.flatMap((k) => (entries.has(k) ? [[k, entries.get(k)!] as const] : []))),
      put: async (list: ReadonlyArray<readonly [string, string]>) => void list.forEach(([k, v]) => entries.set(k, v)),
    };
    await scan(image, { workDir: join(dir, 'work'), analyzers, handlers: [boxHandler()], analysisCache: cache });
    expect(events).toEqual(['early starts with 2 file(s), 0 component(s)', 'first runs', 'early runs']);
    events.length = 0;
    // the whole image from the cache: its stages are replayed, nothing starts or runs
    await scan(image, { workDir: join(dir, 'work2'), analyzers, handlers: [boxHandler()], analysisCache: cache });
    expect(events).toEqual([]);
  });
});

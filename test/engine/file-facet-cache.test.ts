// The per-file side of the analysis cache (FileFacetCache): all of a file's facets in one row (its record), loaded
// by the first stage that asks and written once at the scan's end, with what an earlier scan stored of it kept.
import { describe, expect, it } from 'vitest';
import { FileFacetCache } from '../../src/engine/analysis-cache.js';
import type { FileNode } from '../../src/engine/types.js';
import { MemoryCache } from '../support/memory-cache.js';

const file = (name: string, sha: string): FileNode => ({ path: `img.bin_extract/0-100.squashfs-v4/usr/bin/${name}`, fsPath: `/usr/bin/${name}`, kind: 'file', size: 10, type: 'data', depth: 1, sha256: sha.repeat(64) });
const files = [file('a', '1'), file('b', '2'), file('c', '3')];

describe('file records of the analysis cache', () => {
  it('keeps every facet of a file in one row, loaded once for all the stages', async () => {
    const memory = new MemoryCache();
    const first = new FileFacetCache(memory, 'engine');
    for (const facet of ['crypto', 'malware', 'inventory/signatures', 'weakness/embedded-token']) {
      const lookup = await first.lookup<{ facet: string; file: string }>(facet, 'context', files);
      for (const node of files) lookup.put(node, { facet, file: node.fsPath });
    }
    expect(memory.gets).toBe(1); // the first stage loaded the three records; the others found them loaded
    expect(first.filesAnalysed).toBe(12);
    await memory.put(first.entries());
    expect(memory.entries.size).toBe(3);
    // PostgreSQL's text refuses NUL (and with it the whole batch, the image's snapshot included)
    for (const value of memory.entries.values()) expect(value).not.toContain('\0');

    const next = new FileFacetCache(memory, 'engine');
    const crypto = await next.lookup<{ facet: string; file: string }>('crypto', 'context', files);
    const weakness = await next.lookup<{ facet: string; file: string }>('weakness/embedded-token', 'context', files);
    expect(files.map((node) => crypto.get(node))).toEqual(files.map((node) => ({ facet: 'crypto', file: node.fsPath })));
    expect(weakness.get(files[2]!)).toEqual({ facet: 'weakness/embedded-token', file: '/usr/bin/c' });
    expect(next.filesReused).toBe(4);
    expect(next.entries()).toEqual([]); // nothing new: nothing to write
  });

  it('adds a facet computed later to what the row held, and tells contexts apart', async () => {
    const memory = new MemoryCache();
    const first = new FileFacetCache(memory, 'engine');
    (await first.lookup<string>('crypto', 'max-size 10', files)).put(files[0]!, 'crypto value');
    await memory.put(first.entries());

    const next = new FileFacetCache(memory, 'engine');
    const otherRules = await next.lookup<string>('malware', 'sha256:0a\0builtin\0rule A', files);
    expect(otherRules.has(files[0]!)).toBe(false);
    otherRules.put(files[0]!, 'malware value');
    expect((await next.lookup<string>('crypto', 'max-size 20', files)).has(files[0]!)).toBe(false);
    await memory.put(next.entries());

    const third = new FileFacetCache(memory, 'engine');
    expect((await third.lookup<string>('crypto', 'max-size 10', files)).get(files[0]!)).toBe('crypto value');
    expect((await third.lookup<string>('malware', 'sha256:0a\0builtin\0rule A', files)).get(files[0]!)).toBe('malware value');
    expect((await third.lookup<string>('malware', 'sha256:0a\0builtin\0rule B', files)).has(files[0]!)).toBe(false);
    expect(memory.entries.size).toBe(1);
    // a context holds any character; PostgreSQL's text refuses NUL
    for (const value of memory.entries.values()) expect(value).not.toContain('\0');
  });

  it('gives each stage its own copy of a value, and treats a broken row or a failing cache as a miss', async () => {
    const memory = new MemoryCache();
    const first = new FileFacetCache(memory, 'engine');
    (await first.lookup<{ path: string }>('crypto', '', files)).put(files[0]!, { path: 'old' });
    const [[key]] = first.entries();
    await memory.put(first.entries());

    const next = new FileFacetCache(memory, 'engine');
    const lookup = await next.lookup<{ path: string }>('crypto', '', files);
    lookup.get(files[0]!)!.path = 'changed by a stage';
    expect(lookup.get(files[0]!)).toEqual({ path: 'old' });

    memory.entries.set(key!, '[not a record');
    expect((await new FileFacetCache(memory, 'engine').lookup('crypto', '', files)).has(files[0]!)).toBe(false);
    const failing = { get: () => Promise.reject(new Error('down')), put: () => Promise.resolve() };
    expect((await new FileFacetCache(failing, 'engine').lookup('crypto', '', files)).has(files[0]!)).toBe(false);
  });

  it('writes the unpacker memos beside the records, and nothing for a file without a SHA-256', async () => {
    const cache = new FileFacetCache(new MemoryCache(), 'engine');
    cache.pending.push(['memo', '{"sha256":"x"}']);
    const unhashed = { ...files[0]!, sha256: undefined };
    (await cache.lookup<string>('crypto', '', [unhashed])).put(unhashed, 'value');
    expect(cache.entries()).toEqual([['memo', '{"sha256":"x"}']]);
  });
});

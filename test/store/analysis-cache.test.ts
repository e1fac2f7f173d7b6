// The analysis cache's store on both dialects: one organisation's entries are invisible to another, a read
// answers only the keys it has, a write replaces a key's value, and past the byte cap the least recently used
// entries go first (a read counts as a use).
import { expect, it } from 'vitest';
import { AnalysisCacheRepository } from '../../src/store/analysis-cache.repository.js';
import { describeEachDatabase } from '../support/databases.js';

const value = (n: number, fill = 'x') => fill.repeat(n);
const pause = () => new Promise((r) => setTimeout(r, 5)); // last_used_at has millisecond resolution

describeEachDatabase('analysis cache store', (get) => {
  it('scopes entries to one organisation and answers only the keys it has', async () => {
    const a = new AnalysisCacheRepository(get().db, 'org-a', 1_000_000);
    const b = new AnalysisCacheRepository(get().db, 'org-b', 1_000_000);
    await a.put([['k1', '{"a":1}'], ['k2', '{"a":2}']]);
    expect(await a.get(['k1', 'k2', 'k3'])).toEqual(new Map([['k1', '{"a":1}'], ['k2', '{"a":2}']]));
    expect((await b.get(['k1', 'k2'])).size).toBe(0);
    await b.put([['k1', '{"b":1}']]);
    expect((await a.get(['k1'])).get('k1')).toBe('{"a":1}');
    expect((await b.get(['k1'])).get('k1')).toBe('{"b":1}');
    await a.put([['k1', '{"a":"new"}']]);
    expect((await a.get(['k1'])).get('k1')).toBe('{"a":"new"}');
    expect(await a.totalBytes()).toBe(Buffer.byteLength('{"a":"new"}') + Buffer.byteLength('{"a":2}'));
  });

  it('reads and writes many keys in batches', async () => {
    const c = new AnalysisCacheRepository(get().db, 'org-many', 10_000_000);
    const entries = Array.from({ length: 1234 }, (_, i) => [`key-${i}`, `{"i":${i}}`] as const);
    await c.put(entries);
    const found = await c.get([...entries.map(([k]) => k), 'absent']);
    expect(found.size).toBe(1234);
    expect(found.get('key-1233')).toBe('{"i":1233}');
  });

  it('evicts the least recently used entries past the cap, per organisation', async () => {
    const c = new AnalysisCacheRepository(get().db, 'org-lru', 300);
    const other = new AnalysisCacheRepository(get().db, 'org-lru-other', 300);
    await other.put([['o', value(250)]]);
    await c.put([['old', value(100)]]);
    await pause();
    await c.put([['mid', value(100)]]);
    await pause();
    await c.get(['old']); // used again: now more recent than 'mid'
    await pause();
    await c.put([['new', value(150)]]);
    const left = await c.get(['old', 'mid', 'new']);
    expect([...left.keys()].sort()).toEqual(['new', 'old']);
    expect(await c.totalBytes()).toBe(250);
    expect((await other.get(['o'])).size).toBe(1); // another organisation's entries are not its to evict
    await c.put([['huge', value(301)]]); // larger than the whole cap: not kept
    expect((await c.get(['huge'])).size).toBe(0);
  });
});

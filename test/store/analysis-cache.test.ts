// The analysis cache's store on both dialects: one organisation's entries are invisible to another, a read
// answers only the keys it has, a write replaces a key's value, and past the byte cap the least recently used
// entries go first, down to LOW_WATER of the cap (a read counts as a use, renewed at most once per REFRESH_AFTER_MS);
// the organisation's bytes are counted as rows come and go (analysis_cache_usage), not summed at every write.
import { expect, it } from 'vitest';
import { AnalysisCacheRepository, LOW_WATER } from '../../src/store/analysis-cache.repository.js';
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
    // every read renews the mark here (0): the pauses below are milliseconds
    const c = new AnalysisCacheRepository(get().db, 'org-lru', 300, 0);
    const other = new AnalysisCacheRepository(get().db, 'org-lru-other', 300, 0);
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

  it('counts the bytes as it writes and evicts, from the rows a cache held before the count, and sets a high count right', async () => {
    const db = get().db;
    const counted = async (org: string) =>
      Number((await db.selectFrom('analysis_cache_usage').select('bytes').where('org_id', '=', org).executeTakeFirstOrThrow()).bytes);
    // rows written before the count existed (a cache from before migration 0018): the first write counts them
    const now = new Date().toISOString();
    await db.insertInto('analysis_cache').values({ org_id: 'org-count', key: 'before', value: value(40), bytes: 40, created_at: now, last_used_at: now }).execute();
    const c = new AnalysisCacheRepository(db, 'org-count', 1000, 0);
    await c.put([['a', value(100)]]);
    expect(await counted('org-count')).toBe(140);
    // a replaced row counts whole (the count errs high) until an eviction sums the rows: nothing removed then
    await c.put([['a', value(100)]]);
    await c.put([['a', value(100)]]);
    expect(await counted('org-count')).toBe(340);
    for (let k = 0; k < 7; k++) await c.put([['a', value(100)]]);
    expect(await counted('org-count')).toBe(140); // passed the cap at the 1,040th byte counted: summed, set right
    expect(await c.totalBytes()).toBe(140);
    // past the cap for real: the oldest go until the organisation holds LOW_WATER of it
    for (let k = 0; k < 9; k++) {
      await pause();
      await c.put([[`n${k}`, value(100)]]);
    }
    const total = await c.totalBytes();
    expect(total).toBeLessThanOrEqual(1000 * LOW_WATER);
    expect(await counted('org-count')).toBe(total);
    expect((await c.get(['before', 'a'])).size).toBe(0); // the least recently used went first
    expect((await c.get(['n8'])).size).toBe(1);
  });

  it('renews the mark of a read row only when it is older than the refresh time', async () => {
    const db = get().db;
    const mark = async (key: string) =>
      (await db.selectFrom('analysis_cache').select('last_used_at').where('org_id', '=', 'org-mark').where('key', '=', key).executeTakeFirstOrThrow()).last_used_at;
    const hourly = new AnalysisCacheRepository(db, 'org-mark', 1_000_000);
    await hourly.put([['fresh', '1'], ['old', '2']]);
    const written = await mark('fresh');
    await db.updateTable('analysis_cache').set({ last_used_at: '2020-01-01T00:00:00.000Z' }).where('org_id', '=', 'org-mark').where('key', '=', 'old').execute();
    await pause();
    expect((await hourly.get(['fresh', 'old'])).size).toBe(2);
    expect(await mark('fresh')).toBe(written); // read within the hour: not rewritten
    expect(await mark('old') > written).toBe(true); // older than the refresh time: marked now
  });
});

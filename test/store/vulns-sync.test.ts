// `vulndb sync` against a local HTTP server replaying the real sample feeds: NVD API 2.0 pages (paged from the
// real full page), the real KEV catalog and a generated EPSS CSV; and syncs the server stops answering midway.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatStatus, syncFeeds } from '../../src/cli/vulndb.js';
import { parseNvdCursor, RateLimiter } from '../../src/engine/vulns/sync.js';
import { VulnerabilityImporter } from '../../src/store/vulns-importer.js';
import { VulnerabilityReader } from '../../src/store/vulns-reader.js';
import { describeEachDatabase, openTestDatabase } from '../support/databases.js';
import { haveShared, sharedPath } from '../support/shared.js';

const hasData = haveShared('vulndata', 'nvd-api2.0-full-page.json');

describe('RateLimiter', () => {
  it('never starts more than N requests in a window', async () => {
    const limiter = new RateLimiter(2, 150);
    const t0 = Date.now();
    for (let i = 0; i < 5; i++) await limiter.wait();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
  });
});

describeEachDatabase('vulndb sync', (get) => {
  let server: Server;
  let base = '';
  const requests: Array<{ url: URL; headers: IncomingMessage['headers'] }> = [];
  let failNext = 1;
  /** NVD requests this answers with a 404, as a server that stops answering would (retries: 0 in the tests using it). */
  let failWhen: (url: URL) => boolean = () => false;

  beforeAll(async () => {
    if (!hasData) return;
    const page = JSON.parse(readFileSync(sharedPath('vulndata', 'nvd-api2.0-full-page.json'), 'utf8'));
    const kev = readFileSync(sharedPath('vulndata', 'cisa-kev-sample-catalog.json'));
    const epss = gzipSync('#model_version:v2025.03.14,score_date:2025-08-25T00:00:00Z\ncve,epss,percentile\nCVE-2025-0108,0.9,0.99\nCVE-2024-53704,0.2,0.8\n');
    server = createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      requests.push({ url, headers: req.headers });
      if (url.pathname === '/nvd') {
        if (failNext-- > 0) {
          res.writeHead(503).end('busy');
          return;
        }
        if (failWhen(url)) {
          res.writeHead(404).end();
          return;
        }
        const start = Number(url.searchParams.get('startIndex'));
        const size = Number(url.searchParams.get('resultsPerPage'));
        // an incremental request (lastModStartDate) gets the two newest records only
        const all = url.searchParams.has('lastModStartDate') ? page.vulnerabilities.slice(0, 2) : page.vulnerabilities;
        const slice = all.slice(start, start + size);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...page, resultsPerPage: slice.length, startIndex: start, totalResults: all.length, vulnerabilities: slice }));
      } else if (url.pathname === '/kev.json') res.writeHead(200).end(kev);
      else if (url.pathname === '/epss.csv.gz') res.writeHead(200).end(epss);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    // no server when ../shared is absent: closing nothing must not wait forever
    if (server) await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    requests.length = 0;
    failWhen = () => false;
  });

  const options = () => ({
    nvdUrl: `${base}/nvd`, kevUrl: `${base}/kev.json`, epssUrl: `${base}/epss.csv.gz`, apiKey: 'secret-key',
    resultsPerPage: 10, retries: 0, retryDelayMs: 10, rateLimit: { requests: 100, windowMs: 1000 },
    now: () => new Date('2026-01-01T00:00:00.000Z'),
  });
  const nvdRequests = () => requests.filter((r) => r.url.pathname === '/nvd').map((r) => ({
    startIndex: r.url.searchParams.get('startIndex'), from: r.url.searchParams.get('lastModStartDate'), to: r.url.searchParams.get('lastModEndDate'),
  }));
  /** A test on a database of its own (the suite's is shared by the tests that follow one another). */
  async function withFresh(run: (repo: VulnerabilityImporter) => Promise<void>): Promise<void> {
    const fresh = await openTestDatabase(get().dialect);
    try {
      await run(new VulnerabilityImporter(fresh.db));
    } finally {
      await fresh.close();
    }
  }
  const storedRecords = async (repo: VulnerabilityImporter) => (await repo.status()).records.reduce((n, r) => n + r.count, 0);

  it.runIf(hasData)('fetches NVD page by page with the API key, retries a 503, then KEV and EPSS; resumes from the cursor', async () => {
    const repo = new VulnerabilityImporter(get().db);
    const reader = new VulnerabilityReader(get().db);
    const first = { ...options(), retries: 4 };
    const [nvd, kev, epss] = await syncFeeds(repo, ['nvd', 'kev', 'epss'], first);
    expect(nvd).toMatchObject({ feed: 'nvd', summary: { inserted: 38, errors: [] } });
    expect(nvd!.error).toBeUndefined();
    expect(kev).toMatchObject({ feed: 'kev', summary: { kev: 3, errors: [] } });
    expect(epss).toMatchObject({ feed: 'epss', summary: { epss: 2, errors: [] } });
    expect(nvdRequests().map((r) => r.startIndex)).toEqual(['0', '0', '10', '20', '30']);
    expect(requests.filter((r) => r.url.pathname === '/nvd').every((r) => r.headers.apikey === 'secret-key')).toBe(true);
    expect(nvdRequests().some((r) => r.from !== null)).toBe(false);
    expect((await repo.feed('nvd'))?.cursor).toBe('2026-01-01T00:00:00.000Z');

    requests.length = 0;
    const later = { ...options(), now: () => new Date('2026-09-01T00:00:00.000Z') };
    const [again] = await syncFeeds(repo, ['nvd'], later);
    expect(again!.summary).toMatchObject({ inserted: 0, unchanged: 6 }); // two records served per window
    // 243 days in windows of at most 120 days
    expect(nvdRequests().map((r) => [r.from, r.to])).toEqual([
      ['2026-01-01T00:00:00.000+00:00', '2026-05-01T00:00:00.000+00:00'],
      ['2026-05-01T00:00:00.000+00:00', '2026-08-29T00:00:00.000+00:00'],
      ['2026-08-29T00:00:00.000+00:00', '2026-09-01T00:00:00.000+00:00'],
    ]);
    expect((await repo.feed('nvd'))?.cursor).toBe('2026-09-01T00:00:00.000Z');
  });

  it.runIf(hasData)('reports a feed that keeps failing with what it committed, and syncs the feeds after it', async () => {
    const repo = new VulnerabilityImporter(get().db);
    const reader = new VulnerabilityReader(get().db);
    const results = await syncFeeds(repo, ['kev', 'epss'], { ...options(), kevUrl: `${base}/missing.json`, retryDelayMs: 1 });
    expect(results[0]).toMatchObject({ feed: 'kev', summary: { kev: 0 }, error: expect.stringMatching(/HTTP 404/) });
    expect(results[1]).toMatchObject({ feed: 'epss', summary: { epss: 2, errors: [] } });
    expect(results[1]!.error).toBeUndefined();
  });

  it.runIf(hasData)('a window stopped midway stores its records before the cursor that follows them', async () => {
    await withFresh(async (repo) => {
      await repo.setFeed('nvd', null, '2026-01-01T00:00:00.000Z');
      // the second of three windows fails: the first window's two records are committed, then its cursor
      failWhen = (url) => url.searchParams.get('lastModStartDate') === '2026-05-01T00:00:00.000+00:00';
      const later = { ...options(), now: () => new Date('2026-09-01T00:00:00.000Z') };
      const [nvd] = await syncFeeds(repo, ['nvd'], later);
      expect(nvd).toMatchObject({ feed: 'nvd', summary: { inserted: 2 }, error: expect.stringMatching(/HTTP 404/) });
      expect((await repo.feed('nvd'))?.cursor).toBe('2026-05-01T00:00:00.000Z');
      expect(await storedRecords(repo)).toBe(2);

      failWhen = () => false;
      requests.length = 0;
      const [resumed] = await syncFeeds(repo, ['nvd'], later);
      expect(resumed!.error).toBeUndefined();
      expect(nvdRequests().map((r) => r.from)).toEqual(['2026-05-01T00:00:00.000+00:00', '2026-08-29T00:00:00.000+00:00']);
      expect((await repo.feed('nvd'))?.cursor).toBe('2026-09-01T00:00:00.000Z');
    });
  });

  it.runIf(hasData)('an interrupted first download resumes after its last committed page, then syncs the time since it began', async () => {
    await withFresh(async (repo) => {
      failWhen = (url) => !url.searchParams.has('lastModStartDate') && url.searchParams.get('startIndex') === '20';
      const [nvd] = await syncFeeds(repo, ['nvd'], options());
      expect(nvd).toMatchObject({ feed: 'nvd', summary: { inserted: 20 }, error: expect.stringMatching(/HTTP 404/) });
      expect(await storedRecords(repo)).toBe(20);
      const cursor = (await repo.feed('nvd'))!.cursor!;
      expect(parseNvdCursor(cursor)).toEqual({ from: null, to: '2026-01-01T00:00:00.000Z', startIndex: 20 });
      expect(formatStatus(await repo.status())).toContain('sync cursor first download interrupted after 20 records');

      failWhen = () => false;
      requests.length = 0;
      const later = { ...options(), now: () => new Date('2026-03-01T00:00:00.000Z') };
      const [resumed] = await syncFeeds(repo, ['nvd'], later);
      expect(resumed!.error).toBeUndefined();
      expect(resumed!.summary).toMatchObject({ inserted: 18, unchanged: 2 });
      expect(nvdRequests()).toEqual([
        { startIndex: '20', from: null, to: null },
        { startIndex: '30', from: null, to: null },
        { startIndex: '0', from: '2026-01-01T00:00:00.000+00:00', to: '2026-03-01T00:00:00.000+00:00' },
      ]);
      expect(await storedRecords(repo)).toBe(38);
      expect((await repo.feed('nvd'))?.cursor).toBe('2026-03-01T00:00:00.000Z');
    });
  });

  it('rejects a damaged cursor with the reason', () => {
    expect(parseNvdCursor('2026-01-01T00:00:00.000Z')).toBe('2026-01-01T00:00:00.000Z');
    expect(() => parseNvdCursor('yesterday')).toThrow(/expected an ISO 8601 time/);
    expect(() => parseNvdCursor('{"from":null,"to":"2026-01-01T00:00:00.000Z","startIndex":-1}')).toThrow(/startIndex/);
  });
});

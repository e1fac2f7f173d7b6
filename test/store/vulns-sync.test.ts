// `vulndb sync` against a local HTTP server replaying the real sample feeds: NVD API 2.0 pages (paged from the
// real full page), the real KEV catalog and a generated EPSS CSV.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncFeeds } from '../../src/cli/vulndb.js';
import { RateLimiter } from '../../src/engine/vulns/sync.js';
import { VulnerabilityRepository } from '../../src/store/vulns.repository.js';
import { describeEachDatabase } from '../support/databases.js';
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
    await new Promise((r) => server?.close(r));
  });

  it.runIf(hasData)('fetches NVD page by page with the API key, retries a 503, then KEV and EPSS; resumes from the cursor', async () => {
    const repo = new VulnerabilityRepository(get().db);
    const options = {
      nvdUrl: `${base}/nvd`, kevUrl: `${base}/kev.json`, epssUrl: `${base}/epss.csv.gz`, apiKey: 'secret-key',
      resultsPerPage: 10, retryDelayMs: 10, rateLimit: { requests: 100, windowMs: 1000 },
      now: () => new Date('2026-01-01T00:00:00.000Z'),
    };
    const [nvd, kev, epss] = await syncFeeds(repo, ['nvd', 'kev', 'epss'], options);
    expect(nvd).toMatchObject({ inserted: 38, errors: [] });
    expect(kev).toMatchObject({ kev: 3, errors: [] });
    expect(epss).toMatchObject({ epss: 2, errors: [] });
    const nvdRequests = requests.filter((r) => r.url.pathname === '/nvd');
    expect(nvdRequests.map((r) => r.url.searchParams.get('startIndex'))).toEqual(['0', '0', '10', '20', '30']);
    expect(nvdRequests.every((r) => r.headers.apikey === 'secret-key')).toBe(true);
    expect(nvdRequests.some((r) => r.url.searchParams.has('lastModStartDate'))).toBe(false);
    expect((await repo.feed('nvd'))?.cursor).toBe('2026-01-01T00:00:00.000Z');

    requests.length = 0;
    const later = { ...options, now: () => new Date('2026-09-01T00:00:00.000Z') };
    const [again] = await syncFeeds(repo, ['nvd'], later);
    expect(again).toMatchObject({ inserted: 0, unchanged: 6 }); // two records served per window
    const windows = requests.map((r) => [r.url.searchParams.get('lastModStartDate'), r.url.searchParams.get('lastModEndDate')]);
    // 243 days in windows of at most 120 days
    expect(windows).toEqual([
      ['2026-01-01T00:00:00.000+00:00', '2026-05-01T00:00:00.000+00:00'],
      ['2026-05-01T00:00:00.000+00:00', '2026-08-29T00:00:00.000+00:00'],
      ['2026-08-29T00:00:00.000+00:00', '2026-09-01T00:00:00.000+00:00'],
    ]);
    expect((await repo.feed('nvd'))?.cursor).toBe('2026-09-01T00:00:00.000Z');
  });

  it.runIf(hasData)('reports a feed that keeps failing', async () => {
    const repo = new VulnerabilityRepository(get().db);
    await expect(syncFeeds(repo, ['kev'], { kevUrl: `${base}/missing.json`, retryDelayMs: 1 })).rejects.toThrow(/HTTP 404/);
  });
});

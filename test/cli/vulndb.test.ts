// `firmscope vulndb import`, `status` and `sync` as a user runs them, on the real samples in ../shared/vulndata,
// into a temporary data folder (the SQLite database of FIRMSCOPE_DATA_DIR).
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register } from '../../src/cli/vulndb.js';
import { runCli, useCliFolder } from '../support/cli.js';
import { haveShared, sharedPath } from '../support/shared.js';

const hasData = haveShared('vulndata', 'nvd-api2.0-full-page.json');
const files = ['nvd-api2.0-full-page.json', 'nvd-cve2.0-CVE-2012-0920.json', 'nvd-cve2.0-CVE-2021-42386.json', 'cisa-kev-sample-catalog.json', 'osv-RLSA-2021_3891.json'];

// each test imports into a data folder of its own
useCliFolder('fs-vulndb-');

/** Runs `firmscope ARGS…`; returns what it printed on stdout and the exit code it set. */
async function cli(args: string[]): Promise<{ out: string; exitCode: number }> {
  const { stdout, exitCode } = await runCli(register, args);
  return { out: stdout, exitCode };
}

describe('firmscope vulndb', () => {
  it.runIf(hasData)('import prints its summary and re-matches; a second import changes nothing; status counts what is stored', async () => {
    const paths = files.map((f) => sharedPath('vulndata', f));
    const first = await cli(['vulndb', 'import', ...paths]);
    expect(first.exitCode).toBe(0);
    expect(first.out).toContain('import: 41 new, 0 updated, 0 unchanged records; 3 KEV and 0 EPSS rows; 0 errors\n');
    expect(first.out).toMatch(/^re-match: 0 latest images, 0 new findings/m);

    const again = await cli(['vulndb', 'import', ...paths]);
    expect(again.exitCode).toBe(0);
    expect(again.out).toBe('import: 0 new, 0 updated, 41 unchanged records; 3 KEV and 0 EPSS rows; 0 errors\nre-match: nothing changed, skipped\n');

    const status = await cli(['vulndb', 'status']);
    expect(status.out).toContain('records: 41 (nvd 40, osv 1)\n');
    expect(status.out).toContain('KEV entries: 3\n');
    expect(status.out).toContain('EPSS scores: 0\n');
    expect(status.out).toMatch(/^ {2}kev: feed date \S+, updated /m);
    expect(status.out).toMatch(/^ {2}nvd: feed date \S+, updated /m);
    const json = JSON.parse((await cli(['vulndb', 'status', '--json'])).out);
    expect(json).toMatchObject({ records: [{ source: 'nvd', count: 40 }, { source: 'osv', count: 1 }], kev: 3, epss: 0 });
  });

  it.runIf(hasData)('a change imported without its re-match (--no-rematch, or a run that stopped) is re-matched by the next run', async () => {
    const paths = files.map((f) => sharedPath('vulndata', f));
    const first = await cli(['vulndb', 'import', '--no-rematch', ...paths]);
    expect(first.out).not.toMatch(/re-match/);
    // nothing new this time, but the first import's data was never re-matched
    const again = await cli(['vulndb', 'import', ...paths]);
    expect(again.out).toContain('41 unchanged records');
    expect(again.out).toMatch(/^re-match: 0 latest images, 0 new findings/m);
    expect((await cli(['vulndb', 'import', ...paths])).out).toContain('re-match: nothing changed, skipped\n');
  });

  it.runIf(hasData)('--on-workers queues the re-match as jobs for the workers and meets the request', async () => {
    const paths = files.map((f) => sharedPath('vulndata', f));
    const first = await cli(['vulndb', 'import', '--on-workers', ...paths]);
    expect(first.out).toMatch(/^re-match: queued 0 jobs for the 0 latest images; the workers run them$/m);
    expect((await cli(['vulndb', 'import', '--on-workers', ...paths])).out).toContain('re-match: nothing changed, skipped\n');
  });

  describe('sync', () => {
    let server: Server;
    let base = '';
    beforeAll(async () => {
      if (!hasData) return;
      const kev = readFileSync(sharedPath('vulndata', 'cisa-kev-sample-catalog.json'));
      server = createServer((req, res) => {
        if (req.url === '/kev.json') res.writeHead(200).end(kev);
        else res.writeHead(404).end(); // NVD is down
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      if (server) await new Promise((r) => server.close(r));
    });

    it.runIf(hasData)('a failing feed is reported with exit code 1, and the feeds that imported are summarised and re-matched', async () => {
      const run = await cli(['vulndb', 'sync', '--feeds', 'nvd,kev', '--nvd-url', `${base}/nvd`, '--kev-url', `${base}/kev.json`]);
      expect(run.exitCode).toBe(1);
      expect(run.out).toContain('sync nvd: 0 new, 0 updated, 0 unchanged records; 0 KEV and 0 EPSS rows; 0 errors\n');
      expect(run.out).toMatch(/^sync nvd failed: GET http:\/\/127\.0\.0\.1:\d+\/nvd\?\S+ failed: HTTP 404/m);
      expect(run.out).toContain('sync kev: 0 new, 0 updated, 0 unchanged records; 3 KEV and 0 EPSS rows; 0 errors\n');
      expect(run.out).toMatch(/^re-match: 0 latest images, 0 new findings/m);
      expect((await cli(['vulndb', 'status'])).out).toContain('KEV entries: 3\n');
    });
  });
});

// A `firmscope worker` process killed (SIGKILL) mid-scan: after its lease expires another worker retries the
// scan and completes it; nothing is lost, and the scan history records the retry.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, FirmscopeProcess } from '../support/cli-process.js';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, startTestServer, waitFor, type TestServer } from '../support/server.js';

/** `firmscope worker` on the test server's data folder and database (the built CLI when it is up to date). */
function startWorker(t: TestServer): FirmscopeProcess {
  return new FirmscopeProcess('worker', ['worker'], childEnv({
    FIRMSCOPE_DATA_DIR: t.dataDir, DATABASE_URL: t.databaseUrl, FIRMSCOPE_JOB_LEASE_SECONDS: '2', FIRMSCOPE_JOB_POLL_MS: '100', LOG_LEVEL: 'warn',
  }));
}

for (const dialect of testDialects()) {
  describe(`worker crash [${dialect}]`, () => {
    const children: FirmscopeProcess[] = [];
    let t: TestServer | undefined;
    afterAll(async () => {
      await Promise.all(children.map((child) => child.stop('SIGKILL')));
      await t?.close();
    });

    it('a killed worker’s scan is retried by the next worker and completes', async () => {
      t = await startTestServer({ postgres: dialect === 'postgres', env: { FIRMSCOPE_WORKERS: '0', FIRMSCOPE_JOB_LEASE_SECONDS: '2' } });
      const token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
      const productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'p' })).body.id.split('/')[1];
      const form = new FormData();
      form.set('imageName', 'big');
      // A gzip (of random bytes): random bytes alone are not a firmware image and would end the scan failed.
      form.set('file', new Blob([gzipSync(randomBytes(1024 * 1024))]), 'big.bin');
      const image = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload`, form);
      expect(image.status).toBe(201);
      const scanId: string = image.body.scans[0].id;
      const jobs = t.server.runtime.repos.jobs;

      const first = startWorker(t);
      children.push(first);
      // Kill the first worker as soon as it holds the job.
      await waitFor(async () => ((await jobs.forScan(scanId))[0]?.status === 'running' ? true : undefined), 60_000, 20);
      await first.stop('SIGKILL');
      const afterKill = await t.server.runtime.repos.scans.getById(scanId);
      expect(afterKill?.state).not.toBe('done');

      const second = startWorker(t);
      children.push(second);
      const done = await waitFor(async () => {
        const scan = await t!.server.runtime.repos.scans.getById(scanId);
        return scan && scan.state !== 'new' && scan.state !== 'running' ? scan : undefined;
      }, 120_000, 200);
      expect(done.state).toBe('done');
      // The worker ends the job right after the scan.
      const job = await waitFor(async () => {
        const [j] = await jobs.forScan(scanId);
        return j?.status === 'running' ? undefined : j;
      }, 10_000, 100);
      expect(job?.status).toBe('done');
      expect(job?.attempts).toBe(2);
      const history = await t.server.runtime.repos.scans.states(scanId);
      // The first worker may die before or after marking the scan running: one or two 'running' entries.
      const types = history.map((s) => s.type);
      expect(types[0]).toBe('new');
      expect(types.at(-1)).toBe('done');
      expect(types.slice(1, -1).every((x) => x === 'running')).toBe(true);
      expect(history.some((s) => /retry 2/.test(s.message ?? ''))).toBe(true);
      await second.stop('SIGTERM');
    }, 240_000);
  });
}

// A `firmscope worker` process killed (SIGKILL) mid-scan: after its lease expires another worker retries the
// scan and completes it; nothing is lost, and the scan history records the retry.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, startTestServer, waitFor, type TestServer } from '../support/server.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function startWorker(t: TestServer): ChildProcess {
  const env: NodeJS.ProcessEnv = {
    ...process.env, FIRMSCOPE_DATA_DIR: t.dataDir, FIRMSCOPE_JOB_LEASE_SECONDS: '2', FIRMSCOPE_JOB_POLL_MS: '100', LOG_LEVEL: 'warn',
  };
  if (t.databaseUrl) env.DATABASE_URL = t.databaseUrl;
  else delete env.DATABASE_URL;
  return spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'worker'], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
}

for (const dialect of testDialects()) {
  describe(`worker crash [${dialect}]`, () => {
    const children: ChildProcess[] = [];
    let t: TestServer | undefined;
    afterAll(async () => {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
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
      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));
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
      second.kill('SIGTERM');
      await new Promise((r) => second.once('exit', r));
    }, 240_000);
  });
}

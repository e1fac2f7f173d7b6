// Cancelling a running scan over HTTP really stops its analysis: the worker aborts the engine thread, the
// job ends cancelled and no result is stored.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN, call, passwordToken, startTestServer, waitFor, type TestServer } from '../support/server.js';

describe('cancel', () => {
  let t: TestServer | undefined;
  afterAll(async () => t?.close());

  it('stops a running scan', async () => {
    t = await startTestServer({ env: { FIRMSCOPE_JOB_LEASE_SECONDS: '4' } });
    const token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
    const productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'p' })).body.id.split('/')[1];
    const form = new FormData();
    form.set('imageName', 'big');
    // 64 MiB of random bytes: every stage reads the whole image before the scan ends failed (no known format),
    // seconds of work, so that the cancel (heard by the worker at its next heartbeat, each second here) comes while
    // the analysis runs.
    form.set('file', new Blob([randomBytes(64 * 1024 * 1024)]), 'big.bin');
    const image = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload`, form);
    const scanId: string = image.body.scans[0].id;
    const path = `/api/v4/products/${productId}/images/${image.body.id}/scans/${scanId}`;
    await waitFor(async () => ((await call(t!.base, token, 'GET', path)).body.latestScanState.type === 'running' ? true : undefined), 30_000, 20);
    const cancelled = await call(t.base, token, 'POST', `${path}/states`, { type: 'cancelled' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.latestScanState.type).toBe('cancelled');
    const job = await waitFor(async () => {
      const [j] = await t!.server.runtime.repos.jobs.forScan(scanId);
      return j && j.status !== 'running' ? j : undefined;
    }, 30_000, 100);
    expect(job.status, `the job of a cancelled scan: ${job.lastError ?? ''}`).toBe('cancelled');
    expect((await call(t.base, token, 'GET', `${path}?status=true`)).body.latestScanState.type).toBe('cancelled');
    expect((await call(t.base, token, 'GET', `${path}/components`)).status).toBe(422);
    expect(await t.server.runtime.repos.results.components(scanId)).toEqual([]);
    const again = await call(t.base, token, 'POST', `${path}/states`, { type: 'done' });
    expect(again.status).toBe(409);
  }, 120_000);
});

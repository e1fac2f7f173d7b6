// The seed flow on a scale-out deployment (test/support/fleet.ts): two API servers and three workers with data
// folders of their own, sharing only PostgreSQL, an S3 bucket and, by configuration, the upload secret and token
// signing key. The client walks the seed flow switching server at every step, as a load balancer would send it;
// the scans run on the workers; no server writes a blob to its data folder.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import { startFleet, type Fleet } from '../support/fleet.js';
import { ADMIN, call, passwordToken, waitFor } from '../support/server.js';

const postgres = testDialects().includes('postgres');

describe.skipIf(!postgres)('seed flow on two API servers and three workers', () => {
  let fleet: Fleet;
  /** The two servers' addresses, and a token each issued. */
  let servers: Array<{ base: string; token: string }>;
  /** The server for step `n` (alternating), with the other server's token: every request crosses servers. */
  const at = (n: number) => ({ base: servers[n % 2]!.base, token: servers[(n + 1) % 2]!.token });
  let productId: string;
  let imageId: string;
  const image = gzipSync(Buffer.from('hello firmware on a fleet\n'.repeat(300)));

  beforeAll(async () => {
    fleet = await startFleet('seed-fleet');
    servers = [];
    for (const base of [fleet.first.base, fleet.secondBase]) servers.push({ base, token: await passwordToken(base, ADMIN.email, ADMIN.password) });
  }, 120_000);
  afterAll(async () => {
    await fleet?.close();
  });

  it('both servers publish the one configured signing key', async () => {
    const [a, b] = await Promise.all(servers.map(({ base }) => fetch(`${base}/realms/FirmscopeRealm/protocol/openid-connect/certs`).then((r) => r.json())));
    expect(a).toEqual(b);
    expect((a as { keys: unknown[] }).keys).toHaveLength(1);
  });

  it('creates a product, uploads through a pre-signed PUT asked of one server and finalizes on the other', async () => {
    const created = await call(at(0).base, at(0).token, 'POST', '/api/v4/products', { name: 'Fleet router' });
    expect(created.status).toBe(201);
    productId = created.body.id.split('/')[1];
    const listed = await call(at(1).base, at(1).token, 'GET', '/api/v4/products');
    expect(listed.body.products.map((p: { id: string }) => p.id)).toContain(created.body.id);

    const url = await call(at(0).base, at(0).token, 'GET', `/api/v4/products/${productId}/tempFiles:generateUploadUrl`);
    expect(url.status).toBe(200);
    expect(url.body.uploadUrl.startsWith(`${fleet.s3.endpoint}/${fleet.s3.bucket}/seed-fleet/incoming/${url.body.id}?`)).toBe(true);
    const early = await call(at(1).base, at(1).token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.body.id}&imageName=fw`, new FormData());
    expect(early.status).toBe(409);
    expect(early.body.message).toMatch(/has not been uploaded/);
    // a tampered signature is refused by the bucket
    const tampered = url.body.uploadUrl.replace(/X-Amz-Signature=(.)/, (_: string, c: string) => `X-Amz-Signature=${c === 'a' ? 'b' : 'a'}`);
    expect(tampered).not.toBe(url.body.uploadUrl);
    expect((await fetch(tampered, { method: 'PUT', body: image })).status).toBe(403);
    expect((await fetch(url.body.uploadUrl, { method: 'PUT', body: image, headers: { 'content-type': 'application/octet-stream' } })).status).toBe(200);
    const form = new FormData();
    form.set('file', new Blob([]), 'blob');
    const fin = await call(at(1).base, at(1).token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.body.id}&imageName=fw&version=1.0`, form);
    expect(fin.status).toBe(201);
    expect(fin.body.scans[0].latestScanState.type).toBe('new');
    imageId = fin.body.id;
    const again = await call(at(0).base, at(0).token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.body.id}&imageName=fw`, new FormData());
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already finalized/);
  });

  it('a worker runs the scan; both servers report it completed with the image and its components', async () => {
    let polls = 0;
    const scans = await waitFor(async () => {
      const { base, token } = at(polls++);
      const r = await call(base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/scans?status=true`);
      const state = r.body.scans?.[0]?.latestScanState;
      if (state?.type === 'failed') throw new Error(JSON.stringify(state));
      return state?.type === 'completed' ? r.body : undefined;
    }, 120_000);
    const scanId = scans.scans[0].id;
    const raw = await call(at(1).base, at(1).token, 'GET', `/api/v4/products/${productId}/images/${imageId}/scans/${scanId}`);
    expect(raw.body.latestScanState.type).toBe('done');
    const img = await call(at(0).base, at(0).token, 'GET', `/api/v4/products/${productId}/images/${imageId}`);
    expect(img.body.size).toBe(image.length);
    expect(img.body.hashes.sha256).toBe(createHash('sha256').update(image).digest('hex'));
    const components = await call(at(1).base, at(1).token, 'GET', `/api/v4/products/${productId}/images/${imageId}/scans/${scanId}/components`);
    expect(components.status).toBe(200);
    // the scan ran on one of the workers, as their scan-duration histograms count it, and on no API server
    const counted = async (url: string) => [...(await (await fetch(`${url}/metrics`)).text()).matchAll(/^firmscope_scan_duration_seconds_count\{[^}]*\} (\d+)$/gm)]
      .reduce((sum, m) => sum + Number(m[1]), 0);
    const byWorker = await Promise.all(fleet.workers.map((w) => counted(`http://127.0.0.1:${w.port}`)));
    expect(byWorker.reduce((a, b) => a + b, 0)).toBe(1);
    for (const server of servers) expect(await counted(server.base)).toBe(0);
  }, 150_000);

  it('serves the grid, compare, CSV and every report from either server', async () => {
    const grid = await call(at(0).base, at(0).token, 'POST', '/api/v4/grids/findings:gridList', { filters: [{ field: 'productId', value: productId, comparator: 'equals' }] });
    expect(grid.status).toBe(200);
    expect(grid.body).toMatchObject({ total: expect.any(Number), rows: expect.any(Array) });
    const compare = await call(at(1).base, at(1).token, 'POST', '/api/v4/grids/findings:gridList', {
      filters: [{ field: 'compareLeftImageId', value: imageId, comparator: 'equals' }, { field: 'compareRightImageId', value: imageId, comparator: 'equals' }],
    });
    expect(compare.status).toBe(200);
    const csv = await call(at(0).base, at(0).token, 'POST', '/api/v4/grids/findings:gridList?contentType=csv', { filters: [{ field: 'imageId', value: imageId }] });
    expect(String(csv.body)).toMatch(/^id,pname,name/);
    const pdf = await call(at(1).base, at(1).token, 'GET', `/api/v4/products/${productId}/images/${imageId}?contentType=pdf&imageFields=findings`);
    expect(pdf.status).toBe(200);
    expect((pdf.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
    const json = await call(at(0).base, at(0).token, 'POST', `/api/v4/products/${productId}/images/${imageId}/findingsReport:json`, {});
    expect(json.body.reportType).toBe('findings');
    const sbom = await call(at(1).base, at(1).token, 'GET', `/api/v4/products/${productId}/images/${imageId}/sbomReport:cycloneDX?contentType=json`);
    expect(sbom.body.bomFormat).toBe('CycloneDX');
    const spdx = await call(at(0).base, at(0).token, 'GET', `/api/v4/products/${productId}/images/${imageId}/sbomReport:SPDX?contentType=json`);
    expect(spdx.body.spdxVersion).toBe('SPDX-2.3');
  });

  it('answers the documented 4xx on either server, and a direct upload is scanned by a worker too', async () => {
    const scans = await call(at(0).base, at(0).token, 'GET', `/api/v4/products/${productId}/images/${imageId}/scans`);
    const move = await call(at(1).base, at(1).token, 'POST', `/api/v4/products/${productId}/images/${imageId}/scans/${scans.body.scans[0].id}/states`, { type: 'running' });
    expect(move.status).toBe(409);
    expect(move.body.message).toMatch(/from 'done' to 'running'/);
    const unknownField = await call(at(0).base, at(0).token, 'POST', '/api/v4/products', { name: 'x', colour: 'red' });
    expect(unknownField.status).toBe(400);

    const form = new FormData();
    form.set('imageName', 'direct');
    form.set('file', new Blob([image]), 'direct.bin.gz');
    const direct = await call(at(1).base, at(1).token, 'POST', `/api/v4/products/${productId}/images:upload`, form);
    expect(direct.status).toBe(201);
    const directId = direct.body.id.split('/').pop();
    await waitFor(async () => {
      const r = await call(at(0).base, at(0).token, 'GET', `/api/v4/products/${productId}/images/${directId}/scans?status=true`);
      return r.body.scans?.[0]?.latestScanState?.type === 'completed' || undefined;
    }, 120_000);
    // blobs live in the bucket only: no server or worker keeps one in its data folder
    expect(existsSync(join(fleet.first.dataDir, 'blobs'))).toBe(false);
    for (const w of fleet.workers) expect(existsSync(join(w.dataDir, 'blobs'))).toBe(false);
  }, 150_000);
});

// The seed flow as a client walks it, against the real server over HTTP.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, passwordToken, startTestServer, waitFor, type TestServer } from '../support/server.js';

describe('seed flow over HTTP', () => {
  let t: TestServer;
  let token: string;
  let productId: string;
  let imageId: string;
  const image = gzipSync(Buffer.from('hello firmware\n'.repeat(100)));

  beforeAll(async () => {
    t = await startTestServer();
    token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
  });
  afterAll(async () => t?.close());

  it('creates a product (201, id is products/<ULID>)', async () => {
    const r = await call(t.base, token, 'POST', '/api/v4/products', { name: 'Router X' });
    expect(r.status).toBe(201);
    expect(r.body.id).toMatch(/^products\/[0-9A-Z]{26}$/);
    expect(r.body.name).toBe('Router X');
    expect(r.body.author.email).toBe(ADMIN.email);
    productId = r.body.id.split('/')[1];
    const list = await call(t.base, token, 'GET', '/api/v4/products');
    expect(list.body.products.map((p: { id: string }) => p.id)).toContain(r.body.id);
  });

  it('uploads through a signed URL and finalizes with query parameters and an empty multipart body', async () => {
    const url = await call(t.base, token, 'GET', `/api/v4/products/${productId}/tempFiles:generateUploadUrl`);
    expect(url.status).toBe(200);
    expect(url.body.uploadUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/uploads\//);
    const put = await fetch(url.body.uploadUrl, { method: 'PUT', body: image, headers: { 'content-type': 'application/octet-stream' } });
    expect(put.status).toBe(200);
    const fin = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.body.id}&imageName=fw&version=1.0`, new FormData());
    expect(fin.status).toBe(201);
    expect(fin.body.name).toBe('fw');
    expect(fin.body.version).toBe('1.0');
    expect(fin.body.scans).toHaveLength(1);
    expect(fin.body.scans[0].latestScanState.type).toBe('new');
    imageId = fin.body.id;
    // The temp file is used now: finalizing it again conflicts.
    const again = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.body.id}&imageName=fw`, new FormData());
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already finalized/);
  });

  it('the scan completes; status=true reports completed, without status the raw state', async () => {
    const scans = await waitFor(async () => {
      const r = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/scans?status=true`);
      const type = r.body.scans?.[0]?.latestScanState?.type;
      if (type === 'in_progress') return undefined;
      return r.body;
    }, 60_000);
    expect(scans.scans[0].latestScanState).toMatchObject({ type: 'completed' });
    const scanId = scans.scans[0].id;
    const raw = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/scans/${scanId}`);
    expect(raw.body.latestScanState.type).toBe('done');
    const img = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}`);
    expect(img.body.hashes.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(img.body.size).toBe(image.length);
    expect(img.body.detectedType).toBeTruthy();
    expect(img.body.counts).toMatchObject({ dependenciesCount: expect.any(Number), kev: expect.any(Number) });
    const components = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/scans/${scanId}/components`);
    expect(components.status).toBe(200);
    expect(Array.isArray(components.body.components)).toBe(true);
  });

  it('uploads directly with a file part', async () => {
    const form = new FormData();
    form.set('imageName', 'direct');
    form.set('createScan', 'false');
    form.set('file', new Blob([image]), 'direct.bin.gz');
    const r = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload`, form);
    expect(r.status).toBe(201);
    expect(r.body.fileName).toBe('direct.bin.gz');
    expect(r.body.scans).toEqual([]);
    const scans = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${r.body.id}/scans?status=true`);
    expect(scans.body).toEqual({ scans: [], status: 'no_scans' });
  });
});

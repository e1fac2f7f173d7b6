// Upload size limits: a signed PUT or a direct upload larger than FIRMSCOPE_MAX_UPLOAD_BYTES is refused with
// 413 and leaves nothing usable behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, passwordToken, startTestServer, type TestServer } from '../support/server.js';

describe('upload limits', () => {
  let t: TestServer;
  let token: string;
  let productId: string;
  beforeAll(async () => {
    t = await startTestServer({ env: { FIRMSCOPE_WORKERS: '0', FIRMSCOPE_MAX_UPLOAD_BYTES: '1000' } });
    token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
    productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'p' })).body.id.split('/')[1];
  });
  afterAll(async () => t?.close());

  it('refuses an oversized signed PUT; the temp file stays unusable', async () => {
    const url = await call(t.base, token, 'GET', `/api/v4/products/${productId}/tempFiles:generateUploadUrl`);
    const put = await fetch(url.body.uploadUrl, { method: 'PUT', body: Buffer.alloc(5000) });
    expect(put.status).toBe(413);
    expect(((await put.json()) as { message: string }).message).toMatch(/larger than the limit of 1000 bytes/);
    const fin = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.body.id}&imageName=x`, new FormData());
    expect(fin.status).toBe(409);
    const ok = await fetch(url.body.uploadUrl, { method: 'PUT', body: Buffer.alloc(500) });
    expect(ok.status).toBe(200);
  });

  it('refuses an oversized direct upload and creates no image', async () => {
    const form = new FormData();
    form.set('imageName', 'big');
    form.set('file', new Blob([Buffer.alloc(5000)]), 'big.bin');
    const r = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload`, form);
    expect(r.status).toBe(413);
    expect((await call(t.base, token, 'GET', `/api/v4/products/${productId}/images`)).body.images).toEqual([]);
  });

  it('answers 422 for reports of an image without a completed scan', async () => {
    const form = new FormData();
    form.set('imageName', 'small');
    form.set('createScan', 'false');
    form.set('file', new Blob([Buffer.alloc(100, 1)]), 'small.bin');
    const image = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload`, form);
    expect(image.status).toBe(201);
    const base = `/api/v4/products/${productId}/images/${image.body.id}`;
    const sbom = await call(t.base, token, 'GET', `${base}/sbomReport:cycloneDX?contentType=json`);
    expect(sbom.status).toBe(422);
    expect(sbom.body.message).toMatch(/has no scans/);
    const scan = await call(t.base, token, 'POST', `${base}/scans`);
    const pdf = await call(t.base, token, 'GET', `${base}?contentType=pdf&imageFields=findings`);
    expect(pdf.status).toBe(422);
    expect(pdf.body.message).toContain(`is 'new'`);
    expect(scan.status).toBe(201);
  });
});

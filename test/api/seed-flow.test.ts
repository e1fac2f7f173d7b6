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
    }, 120_000);
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
  }, 150_000);

  it('serves the grid, compare, CSV and reports of the completed scan', async () => {
    const grid = await call(t.base, token, 'POST', '/api/v4/grids/findings:gridList', { filters: [{ field: 'productId', value: productId, comparator: 'equals' }] });
    expect(grid.status).toBe(200);
    expect(grid.body).toMatchObject({ total: expect.any(Number), rows: expect.any(Array) });
    const compare = await call(t.base, token, 'POST', '/api/v4/grids/findings:gridList', {
      filters: [{ field: 'compareLeftImageId', value: imageId, comparator: 'equals' }, { field: 'compareRightImageId', value: imageId, comparator: 'equals' }],
    });
    expect(compare.status).toBe(200);
    expect(compare.body.rows.every((r: { comparison: { status: string } }) => r.comparison.status === 'unchanged')).toBe(true);
    const csv = await call(t.base, token, 'POST', '/api/v4/grids/findings:gridList?contentType=csv', { filters: [{ field: 'imageId', value: imageId }] });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(String(csv.body)).toMatch(/^id,pname,name/);
    const noScope = await call(t.base, token, 'POST', '/api/v4/grids/findings:gridList', { filters: [] });
    expect(noScope.status).toBe(400);
    expect(noScope.body.message).toMatch(/productId or imageId/);
    const badComparator = await call(t.base, token, 'POST', '/api/v4/grids/findings:gridList', { filters: [{ field: 'productId', value: productId, comparator: 'near' }] });
    expect(badComparator.status).toBe(400);
    expect(badComparator.body.message).toContain("'near'");

    const pdf = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}?contentType=pdf&imageFields=findings`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect((pdf.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
    const json = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images/${imageId}/findingsReport:json`, {});
    expect(json.status).toBe(200);
    expect(json.body.reportType).toBe('findings');
    const withFindings = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}?imageFields=findings`);
    expect(Array.isArray(withFindings.body.findings)).toBe(true);
    const sbom = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/sbomReport:cycloneDX?contentType=json`);
    expect(sbom.status).toBe(200);
    expect(sbom.body.bomFormat).toBe('CycloneDX');
    const spdx = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/sbomReport:SPDX?contentType=json`);
    expect(spdx.status).toBe(200);
    expect(spdx.body.spdxVersion).toBe('SPDX-2.3');
  });

  it('answers documented 4xx for bad ids, unknown fields, disallowed moves and unfinished scans', async () => {
    const badId = await call(t.base, token, 'GET', '/api/v4/products/not-a-ulid');
    expect(badId.status).toBe(400);
    expect(badId.body.message).toContain('productId');
    const unknownField = await call(t.base, token, 'POST', '/api/v4/products', { name: 'x', colour: 'red' });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.message).toContain('colour');
    const missing = await call(t.base, token, 'POST', '/api/v4/products', {});
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('name');
    const absent = await call(t.base, token, 'GET', '/api/v4/products/01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(absent.status).toBe(404);
    const scans = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/scans`);
    const scanId = scans.body.scans[0].id;
    const move = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images/${imageId}/scans/${scanId}/states`, { type: 'running' });
    expect(move.status).toBe(409);
    expect(move.body.message).toMatch(/from 'done' to 'running'/);
    // A new scan that is cancelled at once: reports of the image still come from the completed scan, the
    // cancelled scan's components are not ready.
    const created = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images/${imageId}/scans`);
    expect(created.status).toBe(201);
    const cancel = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images/${imageId}/scans/${created.body.id}/states`, { type: 'cancelled' });
    expect(cancel.status).toBe(200);
    expect(cancel.body.latestScanState.type).toBe('cancelled');
    const components = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/scans/${created.body.id}/components`);
    expect(components.status).toBe(422);
    const vex = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/vexReport:openVEX`);
    expect([200, 422]).toContain(vex.status);
    if (vex.status === 422) expect(vex.body.message).toMatch(/not available in this version/);
  });

  it('refuses a tampered upload signature and a finalize before the PUT', async () => {
    const url = await call(t.base, token, 'GET', `/api/v4/products/${productId}/tempFiles:generateUploadUrl`);
    const early = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.body.id}&imageName=x`, new FormData());
    expect(early.status).toBe(409);
    expect(early.body.message).toMatch(/has not been uploaded/);
    // another first character than the signature's own (an 'A' replaced by 'A' would be no tampering)
    const tampered = url.body.uploadUrl.replace(/signature=(.)/, (_: string, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`);
    const put = await fetch(tampered, { method: 'PUT', body: image });
    expect(put.status).toBe(403);
    const expired = url.body.uploadUrl.replace(/expires=\d+/, 'expires=1000');
    expect((await fetch(expired, { method: 'PUT', body: image })).status).toBe(403);
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

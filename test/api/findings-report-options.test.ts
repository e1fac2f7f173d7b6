// The findings report's options over HTTP: contentType=html, sections (a subset; a wrong name is 400) and the
// comparison image (the product's previous image by default, or baselineImageId).
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, call, passwordToken, startTestServer, waitFor, type TestServer } from '../support/server.js';

describe('findings report options', () => {
  let t: TestServer;
  let token: string;
  let productId: string;
  const images: string[] = [];

  async function upload(version: string): Promise<string> {
    const url = await call(t.base, token, 'GET', `/api/v4/products/${productId}/tempFiles:generateUploadUrl`);
    await fetch(url.body.uploadUrl, { method: 'PUT', body: gzipSync(Buffer.from(`firmware ${version}\n`.repeat(50))), headers: { 'content-type': 'application/octet-stream' } });
    const fin = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.body.id}&imageName=fw&version=${version}`, new FormData());
    const id = fin.body.id as string;
    await waitFor(async () => {
      const r = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${id}/scans?status=true`);
      return r.body.scans?.[0]?.latestScanState?.type === 'completed' ? true : undefined;
    }, 120_000);
    return id;
  }

  async function html(imageId: string, query: string): Promise<{ status: number; type: string | null; text: string }> {
    const r = await fetch(`${t.base}/api/v4/products/${productId}/images/${imageId}/findingsReport:download?contentType=html${query}`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}',
    });
    return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
  }

  beforeAll(async () => {
    t = await startTestServer();
    token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
    productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'Router R' })).body.id.split('/')[1];
    images.push(await upload('1.0'));
    images.push(await upload('2.0'));
  }, 240_000);
  afterAll(async () => t?.close());

  it('serves the HTML report, compared with the previous image by default', async () => {
    const r = await html(images[1]!, '');
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^text\/html/);
    expect(r.text).toContain('<!DOCTYPE html>');
    expect(r.text).toContain('Since fw 1.0');
    for (const section of ['summary', 'coverage', 'findings', 'components', 'crypto', 'binaries']) expect(r.text).toContain(`<section id="${section}"`);
    // The first image has nothing before it.
    expect((await html(images[0]!, '')).text).toContain('No earlier image of this product to compare with.');
  });

  it('takes a subset of sections and an explicit comparison image', async () => {
    const r = await html(images[0]!, `&sections=summary&baselineImageId=${images[1]}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain('<section id="summary"');
    expect(r.text).not.toContain('<section id="coverage"');
    expect(r.text).toContain('Since fw 2.0');
  });

  it('refuses an unknown section and a comparison with the image itself', async () => {
    expect((await html(images[0]!, '&sections=summary,everything')).status).toBe(400);
    expect((await html(images[0]!, `&baselineImageId=${images[0]}`)).status).toBe(404);
  });

  it('serves the PDF with the same options', async () => {
    const r = await fetch(`${t.base}/api/v4/products/${productId}/images/${images[1]}/findingsReport:pdf?sections=summary`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await r.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
  });
});

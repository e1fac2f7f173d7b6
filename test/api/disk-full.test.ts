// A full disk (issue 11): the signed PUT, a direct multipart upload and a debug-file attach answer 507 with a
// message a person can act on, leave no partial blob, and succeed on retry once space is back; a scan whose result
// cannot be stored fails with that reason, and a new scan succeeds later. The server stays up throughout. ENOSPC
// is injected below the server's blob folder (fsWithFullStreams in test/support/full-disk.ts).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, startTestServer, waitFor, type TestServer } from '../support/server.js';

const fault = vi.hoisted(() => ({ code: undefined as string | undefined, under: '' }));
vi.mock('node:fs', async (original) => (await import('../support/full-disk.js')).fsWithFullStreams(await original(), fault));
/** The disk below `folder` is full from now on (until `fault.code` is cleared). */
const fill = (folder: string, code = 'ENOSPC') => Object.assign(fault, { code, under: folder });

const FULL = 'the server is out of disk space; free space or contact the operator and retry';

for (const dialect of testDialects()) {
  describe(`uploads on a full disk [${dialect}]`, () => {
    let t: TestServer;
    let token: string;
    let productId: string;
    const blobFiles = (folder: string) => {
      try {
        return readdirSync(join(t.dataDir, 'blobs', folder));
      } catch {
        return [];
      }
    };
    const imageForm = (name: string, bytes: Buffer) => {
      const form = new FormData();
      form.set('imageName', name);
      form.set('createScan', 'false');
      form.set('file', new Blob([bytes]), `${name}.bin`);
      return form;
    };

    beforeAll(async () => {
      t = await startTestServer({ postgres: dialect === 'postgres' });
      token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
      productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'full' })).body.id.split('/')[1];
    });
    afterEach(() => {
      fault.code = undefined;
    });
    afterAll(async () => t?.close());

    it('a signed PUT answers 507 and leaves the temp file not uploaded; the retry succeeds', async () => {
      const url = (await call(t.base, token, 'GET', `/api/v4/products/${productId}/tempFiles:generateUploadUrl`)).body;
      const bytes = Buffer.alloc(2 * 1024 * 1024, 7);
      fill(join(t.dataDir, 'blobs'));
      const put = await fetch(url.uploadUrl, { method: 'PUT', body: bytes });
      expect(put.status).toBe(507);
      expect(await put.json()).toMatchObject({ message: FULL, details: [{ reason: 'insufficientStorage' }] });
      expect(blobFiles('uploads')).toEqual([]);
      const early = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.id}&imageName=x`, new FormData());
      expect(early.status).toBe(409);
      fault.code = undefined;
      expect((await fetch(url.uploadUrl, { method: 'PUT', body: bytes })).status).toBe(200);
      const fin = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.id}&imageName=x&createScan=false`, new FormData());
      expect(fin.status).toBe(201);
      expect(fin.body.size).toBe(bytes.length);
    });

    it('a direct multipart upload answers 507 and creates no image; the retry succeeds', async () => {
      const before = (await call(t.base, token, 'GET', `/api/v4/products/${productId}/images`)).body.images.length;
      const bytes = Buffer.alloc(2 * 1024 * 1024, 9);
      fill(join(t.dataDir, 'blobs'));
      const r = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload`, imageForm('direct', bytes));
      expect(r.status).toBe(507);
      expect(r.body.message).toBe(FULL);
      expect(blobFiles('images')).toEqual([]);
      expect((await call(t.base, token, 'GET', `/api/v4/products/${productId}/images`)).body.images).toHaveLength(before);
      fault.code = undefined;
      const retry = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload`, imageForm('direct', bytes));
      expect(retry.status).toBe(201);
      expect(blobFiles('images')).toHaveLength(1);
    });

    it('attaching a debug file answers 507 and attaches nothing; the retry succeeds', async () => {
      const image = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload`, imageForm('with-symbols', Buffer.from('image')));
      expect(image.status).toBe(201);
      const files = `/api/v4/products/${productId}/images/${image.body.id}/files`;
      const attach = () => {
        const form = new FormData();
        form.set('file', new Blob([Buffer.alloc(512 * 1024, 4)]), 'app.pdb');
        return call(t.base, token, 'POST', files, form);
      };
      fill(join(t.dataDir, 'blobs', 'files'));
      const r = await attach();
      expect(r.status).toBe(507);
      expect(r.body.message).toBe(FULL);
      expect(blobFiles('files')).toEqual([]);
      expect((await call(t.base, token, 'GET', files)).body.files).toEqual([]);
      fault.code = undefined;
      expect((await attach()).status).toBe(201);
      expect((await call(t.base, token, 'GET', files)).body.files).toHaveLength(1);
    });

    it('a scan whose result document cannot be stored fails with the reason; a new scan completes once space is back', async () => {
      const image = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload`, imageForm('scanned', Buffer.from('#!/bin/sh\n' + 'echo plain firmware\n'.repeat(50))));
      expect(image.status).toBe(201);
      const scans = `/api/v4/products/${productId}/images/${image.body.id}/scans`;
      const latest = (type: string) => async () => {
        const r = await call(t.base, token, 'GET', `${scans}?status=true`);
        const state = r.body.scans?.[0]?.latestScanState;
        return state?.type === type ? state : undefined;
      };
      fill(join(t.dataDir, 'blobs', 'results'));
      expect((await call(t.base, token, 'POST', scans)).status).toBe(201);
      const failed = await waitFor(latest('failed'), 60_000);
      expect(failed.error.message).toContain(FULL);
      expect(blobFiles('results')).toEqual([]);
      fault.code = undefined;
      expect((await call(t.base, token, 'POST', scans)).status).toBe(201);
      await waitFor(latest('completed'), 60_000);
      expect(blobFiles('results')).toHaveLength(1);
    }, 150_000);
  });
}

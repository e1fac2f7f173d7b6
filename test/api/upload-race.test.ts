// Pre-signed upload races (issue 11): a PUT still streaming when its temp file is finalized, and concurrent
// PUTs to one URL. Each race is driven deterministically: a request body the test holds open, finalize (or the
// other PUT) in between, then the body finishes. The image's stored bytes and SHA-256 must be the finalized ones.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JobRepository } from '../../src/store/job.repository.js';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, startTestServer, waitFor, type TestServer } from '../support/server.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A PUT whose body the test finishes when it wants: the first chunk goes at once, `finish()` sends the rest. */
function heldPut(url: string, first: Buffer, rest: Buffer) {
  let finish!: () => void;
  const released = new Promise<void>((resolve) => (finish = resolve));
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(first);
      await released;
      controller.enqueue(rest);
      controller.close();
    },
  });
  const response = fetch(url, { method: 'PUT', body, duplex: 'half' } as RequestInit & { duplex: 'half' });
  return { response, finish, bytes: Buffer.concat([first, rest]) };
}

for (const dialect of testDialects()) {
  describe(`pre-signed upload races [${dialect}]`, () => {
    let t: TestServer;
    let token: string;
    let productId: string;
    const uploadsDir = () => join(t.dataDir, 'blobs', 'uploads');
    const blobsOf = (tempId: string) => {
      try {
        return readdirSync(uploadsDir()).filter((name) => name.startsWith(tempId));
      } catch {
        return [];
      }
    };
    /** Resolves once the server is streaming `count` PUT bodies of the temp file (their temporary files exist). */
    const streaming = (tempId: string, count: number) =>
      waitFor(async () => (blobsOf(tempId).filter((name) => name.includes('.tmp-')).length >= count ? true : undefined), 10_000, 20);

    async function uploadUrl(): Promise<{ id: string; uploadUrl: string }> {
      const r = await call(t.base, token, 'GET', `/api/v4/products/${productId}/tempFiles:generateUploadUrl`);
      expect(r.status).toBe(200);
      return r.body;
    }
    const finalize = (tempId: string, name: string) =>
      call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${tempId}&imageName=${name}&createScan=false`, new FormData());

    /** The image's recorded SHA-256 (over the API) and the SHA-256 of the bytes its blob holds now. */
    async function stored(imageId: string): Promise<{ recorded: string; actual: string; key: string }> {
      const r = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}`);
      const image = (await t.server.runtime.repos.images.getById(imageId))!;
      return { recorded: r.body.hashes.sha256, actual: sha256(await buffer(await t.server.runtime.blobs.read(image.blobKey))), key: image.blobKey };
    }

    beforeAll(async () => {
      t = await startTestServer({ env: { FIRMSCOPE_WORKERS: '0' }, postgres: dialect === 'postgres' });
      token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
      productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'races' })).body.id.split('/')[1];
    });
    afterAll(async () => t?.close());

    it('a PUT still streaming when the image is finalized loses: 409, the image keeps the finalized bytes, nothing left behind', async () => {
      const url = await uploadUrl();
      const original = Buffer.from('original firmware\n'.repeat(2000));
      expect((await fetch(url.uploadUrl, { method: 'PUT', body: original })).status).toBe(200);
      const late = heldPut(url.uploadUrl, Buffer.alloc(64 * 1024, 1), Buffer.alloc(64 * 1024, 2));
      await streaming(url.id, 1);
      const fin = await finalize(url.id, 'raced');
      expect(fin.status).toBe(201);
      expect(fin.body.hashes.sha256).toBe(sha256(original));
      late.finish();
      const put = await late.response;
      const after = await stored(fin.body.id);
      expect(after).toMatchObject({ recorded: sha256(original), actual: sha256(original) });
      expect(put.status).toBe(409);
      expect(((await put.json()) as { message: string }).message).toMatch(/finalized into an image while this upload was streaming/);
      expect(blobsOf(url.id)).toEqual([after.key.split('/')[1]]);
      // A PUT after finalize is refused and changes nothing either.
      expect((await fetch(url.uploadUrl, { method: 'PUT', body: Buffer.from('later') })).status).toBe(409);
      expect(await stored(fin.body.id)).toEqual(after);
    });

    it('a PUT that completes before finalize wins: the image holds exactly its bytes, the replaced upload is deleted', async () => {
      const url = await uploadUrl();
      expect((await fetch(url.uploadUrl, { method: 'PUT', body: Buffer.from('first') })).status).toBe(200);
      const second = heldPut(url.uploadUrl, Buffer.alloc(32 * 1024, 3), Buffer.alloc(32 * 1024, 4));
      await streaming(url.id, 1);
      second.finish();
      expect((await second.response).status).toBe(200);
      const fin = await finalize(url.id, 'second');
      expect(fin.status).toBe(201);
      const after = await stored(fin.body.id);
      expect(after).toMatchObject({ recorded: sha256(second.bytes), actual: sha256(second.bytes) });
      expect(blobsOf(url.id)).toEqual([after.key.split('/')[1]]);
    });

    it('of concurrent PUTs to one URL exactly one commits; the other answers 409 and leaves nothing behind', async () => {
      const url = await uploadUrl();
      const a = heldPut(url.uploadUrl, Buffer.alloc(32 * 1024, 5), Buffer.alloc(32 * 1024, 6));
      const b = heldPut(url.uploadUrl, Buffer.alloc(32 * 1024, 7), Buffer.alloc(32 * 1024, 8));
      await streaming(url.id, 2);
      a.finish();
      expect((await a.response).status).toBe(200);
      b.finish();
      const lost = await b.response;
      expect(lost.status).toBe(409);
      expect(((await lost.json()) as { message: string }).message).toMatch(/another upload .* completed while this one was streaming/);
      const fin = await finalize(url.id, 'concurrent');
      expect(fin.status).toBe(201);
      const after = await stored(fin.body.id);
      expect(after).toMatchObject({ recorded: sha256(a.bytes), actual: sha256(a.bytes) });
      expect(blobsOf(url.id)).toEqual([after.key.split('/')[1]]);
    });

    it('finalize is one transaction: when the scan cannot be queued, the upload is not spent and no image is made', async () => {
      const url = await uploadUrl();
      const bytes = Buffer.from('#!/bin/sh\necho atomic finalize\n');
      expect((await fetch(url.uploadUrl, { method: 'PUT', body: bytes })).status).toBe(200);
      const images = async () => (await call(t.base, token, 'GET', `/api/v4/products/${productId}/images`)).body.images.filter((i: { name: string }) => i.name === 'atomic');
      const enqueue = vi.spyOn(JobRepository.prototype, 'enqueue').mockRejectedValueOnce(new Error('injected: the job table is unavailable'));
      try {
        const failed = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.id}&imageName=atomic`, new FormData());
        expect(failed.status).toBe(500);
      } finally {
        enqueue.mockRestore();
      }
      expect(await images()).toEqual([]);
      // the retry finds its upload still there and gets its image and scan
      const retried = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.id}&imageName=atomic`, new FormData());
      expect(retried.status).toBe(201);
      expect(retried.body.scans).toHaveLength(1);
      expect(await images()).toHaveLength(1);
      expect(await stored(retried.body.id)).toMatchObject({ recorded: sha256(bytes), actual: sha256(bytes) });
    });
  });
}

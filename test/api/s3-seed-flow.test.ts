// The seed flow with FIRMSCOPE_BLOB_URL on a real S3-protocol server (s3rver behind a SigV4-checking front,
// test/support/s3-server.ts): the upload URL is a pre-signed PUT straight to the bucket, finalize adopts the
// object, the worker downloads the image into its work folder, and results, debug files and reports live in the
// bucket. Nothing is written to the data folder's blobs.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3_CREDENTIALS, S3_REGION, startTestS3, type TestS3 } from '../support/s3-server.js';
import { ADMIN, call, passwordToken, startTestServer, uploadAndScan, waitFor, type TestServer } from '../support/server.js';

describe('seed flow with blobs in S3', () => {
  let s3: TestS3;
  let t: TestServer;
  let token: string;
  let productId: string;
  const image = gzipSync(Buffer.from('hello firmware in a bucket\n'.repeat(200)));

  beforeAll(async () => {
    s3 = await startTestS3();
    Object.assign(process.env, { AWS_REGION: S3_REGION, AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey });
    t = await startTestServer({ env: s3.env('seed') });
    token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
    productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'Bucket router' })).body.id.split('/')[1];
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  it('uploads with a pre-signed PUT to the bucket, finalizes, scans and serves the results', async () => {
    const url = await call(t.base, token, 'GET', `/api/v4/products/${productId}/tempFiles:generateUploadUrl`);
    expect(url.status).toBe(200);
    expect(url.body.uploadUrl.startsWith(`${s3.endpoint}/${s3.bucket}/seed/incoming/${url.body.id}?`)).toBe(true);
    const early = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.body.id}&imageName=fw`, new FormData());
    expect(early.status).toBe(409);
    expect(early.body.message).toMatch(/has not been uploaded/);
    const put = await fetch(url.body.uploadUrl, { method: 'PUT', body: image, headers: { 'content-type': 'application/octet-stream' } });
    expect(put.status).toBe(200);
    // the seed's form: a `file` part that is required but ignored
    const form = new FormData();
    form.set('file', new Blob([]), 'blob');
    const fin = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.body.id}&imageName=fw&version=2.0`, form);
    expect(fin.status).toBe(201);
    expect(fin.body.scans[0].latestScanState.type).toBe('new');
    const imageId: string = fin.body.id;
    const again = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.body.id}&imageName=fw`, new FormData());
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already finalized/);

    await waitFor(async () => {
      const r = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/scans?status=true`);
      const state = r.body.scans?.[0]?.latestScanState;
      if (state?.type === 'failed') throw new Error(JSON.stringify(state));
      return state?.type === 'completed' ? true : undefined;
    }, 120_000);
    const img = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}`);
    expect(img.body.size).toBe(image.length);
    expect(img.body.hashes.sha256).toBe(createHash('sha256').update(image).digest('hex'));
    const json = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images/${imageId}/findingsReport:json`, {});
    expect(json.status).toBe(200);
    const sbom = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/sbomReport:cycloneDX?contentType=json`);
    expect(sbom.body.bomFormat).toBe('CycloneDX');

    const debug = new FormData();
    debug.set('file', new Blob([Buffer.from('debug symbols')]), 'fw.debug');
    const attached = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images/${imageId}/files`, debug);
    expect(attached.status).toBe(201);
    const fileId = String(attached.body.id).split('/').pop();
    const download = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/files/${fileId}/download`);
    expect(download.status).toBe(200);
    expect(download.body.toString()).toBe('debug symbols');
    expect(existsSync(join(t.dataDir, 'blobs'))).toBe(false);
  }, 150_000);

  it('takes a direct multipart upload into the bucket too', async () => {
    const imageId = await uploadAndScan(t.base, token, productId, 'direct', 'direct.gz', image);
    const img = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}`);
    expect(img.body.hashes.sha256).toBe(createHash('sha256').update(image).digest('hex'));
    expect(existsSync(join(t.dataDir, 'blobs'))).toBe(false);
  }, 150_000);
});

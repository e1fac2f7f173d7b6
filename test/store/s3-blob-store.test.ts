// The S3 blob store's contract against a real S3-protocol server (s3rver on 127.0.0.1 behind a SigV4-checking
// front, test/support/s3-server.ts): put, get, range get, delete, multipart, pre-signed PUT (fresh, expired,
// tampered) and adopting a direct upload.
import { randomBytes, createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore, s3Client } from '../../src/store/s3-blob-store.js';
import { S3_CREDENTIALS, S3_REGION, startTestS3, type TestS3 } from '../support/s3-server.js';

describe('S3 blob store (s3rver)', () => {
  let s3: TestS3;
  let store: S3BlobStore;
  const workDir = mkdtempSync(join(tmpdir(), 'firmscope-s3-work-'));

  beforeAll(async () => {
    s3 = await startTestS3();
    process.env.AWS_REGION = S3_REGION;
    process.env.AWS_ACCESS_KEY_ID = S3_CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = S3_CREDENTIALS.secretAccessKey;
    store = new S3BlobStore(s3Client({ endpoint: s3.endpoint, forcePathStyle: true }), { bucket: s3.bucket, prefix: 'contract' });
  });
  afterAll(async () => {
    await s3?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('puts a stream with its hashes, gets it whole and by range, and deletes it', async () => {
    const bytes = Buffer.from('0123456789abcdef'.repeat(64));
    const stored = await store.write('images/a', Readable.from([bytes.subarray(0, 100), bytes.subarray(100)]));
    expect(stored).toEqual({
      key: 'images/a', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'),
      sha1: createHash('sha1').update(bytes).digest('hex'), md5: createHash('md5').update(bytes).digest('hex'),
    });
    expect(await store.size('images/a')).toBe(bytes.length);
    expect(Buffer.compare(await buffer(await store.read('images/a')), bytes)).toBe(0);
    expect((await buffer(await store.read('images/a', { start: 10, end: 19 }))).toString()).toBe('abcdef0123');
    expect((await buffer(await store.read('images/a', { start: bytes.length - 3 }))).toString()).toBe('def');
    const local = await store.localPath('images/a', workDir);
    expect(Buffer.compare(readFileSync(local), bytes)).toBe(0);
    await store.delete('images/a');
    expect(await store.size('images/a')).toBeUndefined();
    await expect(store.read('images/a')).rejects.toMatchObject({ name: 'NotFoundError' });
    await expect(store.write('../escape', Buffer.from('x'))).rejects.toMatchObject({ name: 'InvalidInputError' });
  });

  it('writes a large stream in several parts (multipart) and refuses one past maxBytes, leaving nothing', async () => {
    const bytes = randomBytes(20 * 1024 ** 2 + 123);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536));
    const stored = await store.write('results/big', Readable.from(chunks));
    expect(stored.size).toBe(bytes.length);
    expect(stored.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(createHash('sha256').update(await buffer(await store.read('results/big'))).digest('hex')).toBe(stored.sha256);
    await expect(store.write('results/too-big', Readable.from(chunks), { maxBytes: 10 * 1024 ** 2 })).rejects.toMatchObject({ name: 'TooLargeError' });
    expect(await store.size('results/too-big')).toBeUndefined();
    await store.delete('results/big');
  }, 60_000);

  it('accepts a PUT to a pre-signed URL and adopts it under a key of its own with its hashes', async () => {
    const bytes = Buffer.from('firmware bytes '.repeat(1000));
    const url = await store.directUploads.putUrl('uploads/t1', 60);
    expect(url).toContain(`${s3.endpoint}/${s3.bucket}/contract/uploads/t1?`);
    expect(url).toContain('X-Amz-Signature=');
    const put = await fetch(url, { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
    expect(put.status).toBe(200);
    expect(await store.directUploads.adopt('uploads/missing', 'uploads/missing-1', 1e9)).toBeUndefined();
    await expect(store.directUploads.adopt('uploads/t1', 'uploads/t1-x', 100)).rejects.toMatchObject({ name: 'TooLargeError' });
    const again = await fetch(url, { method: 'PUT', body: bytes });
    expect(again.status).toBe(200);
    const adopted = await store.directUploads.adopt('uploads/t1', 'uploads/t1-final', 1e9);
    expect(adopted).toMatchObject({ key: 'uploads/t1-final', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(await store.size('uploads/t1')).toBeUndefined();
    // a later PUT to the same URL cannot change the adopted object
    await fetch(url, { method: 'PUT', body: Buffer.from('replaced') });
    expect((await buffer(await store.read('uploads/t1-final'))).length).toBe(bytes.length);
  });

  it('refuses a tampered pre-signed URL (other key, other signature) and an expired one', async () => {
    const url = new URL(await store.directUploads.putUrl('uploads/t2', 60));
    const otherKey = new URL(url);
    otherKey.pathname = otherKey.pathname.replace('t2', 't3');
    expect((await fetch(otherKey, { method: 'PUT', body: 'x' })).status).toBe(403);
    const otherSignature = new URL(url);
    const signature = otherSignature.searchParams.get('X-Amz-Signature')!;
    otherSignature.searchParams.set('X-Amz-Signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`);
    expect((await fetch(otherSignature, { method: 'PUT', body: 'x' })).status).toBe(403);
    const longer = new URL(url);
    longer.searchParams.set('X-Amz-Expires', '604800');
    expect((await fetch(longer, { method: 'PUT', body: 'x' })).status).toBe(403);
    expect(await store.size('uploads/t2')).toBeUndefined();
    expect(await store.size('uploads/t3')).toBeUndefined();
    expect(s3.refused).toBe(3);

    const expiring = await store.directUploads.putUrl('uploads/t4', 1);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const expired = await fetch(expiring, { method: 'PUT', body: 'x' });
    expect(expired.status).toBe(403);
    expect(await expired.text()).toMatch(/expired/i);
    expect(await store.size('uploads/t4')).toBeUndefined();
  });
});

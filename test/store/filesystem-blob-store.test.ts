import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import { FilesystemBlobStore } from '../../src/store/filesystem-blob-store.js';

const root = mkdtempSync(join(tmpdir(), 'firmscope-blobs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function* chunks(count: number, size: number): Generator<Buffer> {
  for (let i = 0; i < count; i++) yield Buffer.alloc(size, i % 251);
}

describe('FilesystemBlobStore', () => {
  const store = new FilesystemBlobStore(root);

  it('streams a blob in and computes SHA-256, SHA-1 and MD5 on the way', async () => {
    const expected = Buffer.concat([...chunks(40, 65536)]);
    const blob = await store.write('images/a/b.bin', Readable.from(chunks(40, 65536)));
    expect(blob.size).toBe(expected.length);
    expect(blob.sha256).toBe(createHash('sha256').update(expected).digest('hex'));
    expect(blob.sha1).toBe(createHash('sha1').update(expected).digest('hex'));
    expect(blob.md5).toBe(createHash('md5').update(expected).digest('hex'));
    expect(await store.size('images/a/b.bin')).toBe(expected.length);
  });

  it('reads back what was written', async () => {
    await store.write('x/hello.txt', Buffer.from('hello'));
    expect(await text(await store.read('x/hello.txt'))).toBe('hello');
  });

  it('rejects input over the size limit and leaves nothing behind', async () => {
    await expect(store.write('big/one', Readable.from(chunks(4, 1000)), { maxBytes: 3000 })).rejects.toThrow(/larger than the limit/);
    expect(await store.size('big/one')).toBeUndefined();
    expect(readdirSync(join(root, 'big'))).toEqual([]);
  });

  it('rejects keys that could leave the root', async () => {
    for (const key of ['../x', 'a/../../x', '/etc/passwd', 'a//b', '.hidden/../x', '']) {
      await expect(store.write(key, Buffer.from('x'))).rejects.toThrow(/invalid blob key/);
    }
  });

  it('reports a missing blob as not found', async () => {
    await expect(store.read('nope/nothing')).rejects.toThrow(/does not exist/);
    expect(await store.size('nope/nothing')).toBeUndefined();
  });

  it('a failing source leaves no partial blob', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('connection reset'));
      },
    });
    await expect(store.write('partial/x', failing)).rejects.toThrow(/connection reset/);
    expect(await store.size('partial/x')).toBeUndefined();
    expect(readdirSync(join(root, 'partial'))).toEqual([]);
    // many at once: a source failing before the temp file is even opened must not leave it behind (CI saw one)
    const failingNow = () => new Readable({ read() { this.destroy(new Error('connection reset')); } });
    const settled = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => store.write(`partial/y${i}`, failingNow())));
    expect(settled.map((r) => (r.status === 'rejected' ? String(r.reason) : 'written'))).toEqual(Array(40).fill('Error: connection reset'));
    expect(readdirSync(join(root, 'partial'))).toEqual([]);
  });
});

// A full disk while writing a blob: InsufficientStorageError (→ 507), no partial blob or temporary file left,
// and the same write succeeds once space is back. Covers the server's own writes too (scan result documents).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { ScanResult } from '../../src/engine/types.js';
import { InsufficientStorageError } from '../../src/errors.js';
import { readResultDocument, writeResultDocument } from '../../src/services/result-document.js';
import { FilesystemBlobStore } from '../../src/store/filesystem-blob-store.js';

const fault = vi.hoisted(() => ({ code: undefined as string | undefined, under: '' }));
vi.mock('node:fs', async (original) => (await import('../support/full-disk.js')).fsWithFullStreams(await original(), fault));
/** The disk below `folder` is full from now on (until `fault.code` is cleared). */
const fill = (folder: string, code = 'ENOSPC') => Object.assign(fault, { code, under: folder });

const root = mkdtempSync(join(tmpdir(), 'firmscope-full-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  fault.code = undefined;
});

describe('FilesystemBlobStore on a full disk', () => {
  const store = new FilesystemBlobStore(root);

  it('fails with InsufficientStorageError, leaves nothing behind, and writes once space is back', async () => {
    fill(root);
    const source = Readable.from([Buffer.alloc(70_000, 1), Buffer.alloc(70_000, 2)]);
    const error = await store.write('images/one', source).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientStorageError);
    expect((error as Error).message).toBe('the server is out of disk space; free space or contact the operator and retry');
    expect(readdirSync(join(root, 'images'))).toEqual([]);
    fault.code = undefined;
    expect((await store.write('images/one', Buffer.alloc(140_000, 3))).size).toBe(140_000);
    expect(readdirSync(join(root, 'images'))).toEqual(['one']);
  });

  it('a one-chunk write fails too (the disk fills at the end), and so does a full quota', async () => {
    fill(root, 'EDQUOT');
    await expect(store.write('small/one', Buffer.from('tiny'))).rejects.toBeInstanceOf(InsufficientStorageError);
    expect(readdirSync(join(root, 'small'))).toEqual([]);
  });

  it('a scan result document the server writes: same error, no partial document', async () => {
    const result = {
      engineVersion: 'test', image: { name: 'x' }, files: [], unknownChunks: [], problems: [], stats: {},
      components: [], findings: [], cryptoAssets: [],
    } as unknown as ScanResult;
    fill(root);
    await expect(writeResultDocument(store, 'scan-1', result)).rejects.toBeInstanceOf(InsufficientStorageError);
    expect(readdirSync(join(root, 'results'))).toEqual([]);
    fault.code = undefined;
    const key = await writeResultDocument(store, 'scan-1', result);
    expect((await readResultDocument(store, key)).engineVersion).toBe('test');
  });
});

// The scan use case with its engine replaced by test doubles (a result, a crash, a hang until aborted) on a
// real store and blob store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiskFullError, UnrecognisedImageError } from '../../src/engine/errors.js';
import type { ScanResult } from '../../src/engine/types.js';
import { readResultDocument } from '../../src/services/result-document.js';
import { createRepositories, type Repositories } from '../../src/store/repositories.js';
import { runScan, type RunScanDeps } from '../../src/services/run-scan.js';
import { createScan } from '../../src/services/scans.js';
import type { BlobStore } from '../../src/store/blob-store.js';
import { FilesystemBlobStore } from '../../src/store/filesystem-blob-store.js';
import { openTestDatabase, type TestDatabase } from '../support/databases.js';

const result = (imagePath: string): ScanResult => ({
  engineVersion: 'test', image: { fileName: imagePath, size: 4, hashes: { sha256: 'a', sha1: 'b', md5: 'c' }, type: 'squashfs' },
  files: [{ path: 'img', fsPath: '/', kind: 'file', size: 4, type: 'squashfs', depth: 0 }], unknownChunks: [], problems: [],
  components: [{ ref: 'busybox@1.36', name: 'busybox', version: '1.36', type: 'application', confidence: 1, paths: ['bin/busybox'], evidence: [], foundBy: ['t'] }],
  findings: [], cryptoAssets: [], stats: { durationMs: 1, filesExtracted: 1, bytesExtracted: 4, formats: {} },
});

describe('runScan', () => {
  let database: TestDatabase;
  let repos: Repositories;
  let blobs: BlobStore;
  const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-run-'));
  let image: Awaited<ReturnType<Repositories['images']['create']>>;

  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
    repos = createRepositories(database.db, database.dialect);
    blobs = new FilesystemBlobStore(join(dataDir, 'blobs'));
    const org = await repos.identities.createOrg('o');
    const user = await repos.identities.createUser({ orgId: org.id, email: 'u@o.test', role: 'editor', passwordHash: null });
    const product = await repos.products.create({ orgId: org.id, name: 'p', authorId: user.id });
    const blob = await blobs.write('images/one', Buffer.from('hsqs'));
    image = await repos.images.create({ productId: product.id, orgId: org.id, name: 'i', fileName: 'i.bin', blob, authorId: user.id });
  });
  afterAll(async () => {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const deps = (analyse: RunScanDeps['analyse']): RunScanDeps => ({ repos, blobs, dataDir, analyse });

  it('stores the result and completes the scan', async () => {
    const scan = await createScan(repos, image, image.author!.id);
    const outcome = await runScan(deps(async (input) => result(input.imagePath)), scan.id, new AbortController().signal, 1);
    expect(outcome).toBe('done');
    const stored = (await repos.scans.getById(scan.id))!;
    expect(stored.state).toBe('done');
    expect((await repos.results.components(scan.id)).map((c) => c.name)).toEqual(['busybox']);
    const document = await readResultDocument(blobs, stored.resultBlobKey!);
    expect(document.files).toHaveLength(1);
    expect((await repos.images.getById(image.id))?.detectedType).toBe('squashfs');
  });

  it('fails the scan with the reason when the analysis throws', async () => {
    const scan = await createScan(repos, image, image.author!.id);
    const outcome = await runScan(deps(async () => {
      throw new Error('squashfs: superblock truncated');
    }), scan.id, new AbortController().signal, 1);
    expect(outcome).toBe('failed');
    const stored = (await repos.scans.getById(scan.id))!;
    expect(stored.state).toBe('failed');
    expect(stored.error).toContain('superblock truncated');
  });

  it('stores the summary and the problems with their levels', async () => {
    const scan = await createScan(repos, image, image.author!.id);
    const summary = {
      filesExtracted: 0, bytesExtracted: 0, formats: {}, coverage: 0, problems: { info: 1, warning: 0, error: 1 }, phases: { hash: 1 },
      durationMs: 1, complete: false, incompleteReasons: ['i.bin at 0: gzip: truncated stream'],
    };
    const problems: ScanResult['problems'] = [
      { source: 'zstd', path: 'i.bin', offset: 9, kind: 'error', level: 'info', message: 'zstd: reserved block type' },
      { source: 'gzip', path: 'i.bin', offset: 0, kind: 'error', message: 'gzip: truncated stream' },
    ];
    expect(await runScan(deps(async (input) => ({ ...result(input.imagePath), problems, summary })), scan.id, new AbortController().signal, 1)).toBe('done');
    const stored = (await repos.scans.getById(scan.id))!;
    expect(stored.summary).toEqual(summary);
    expect((await repos.scans.states(scan.id)).at(-1)?.message).toContain('analysis incomplete: i.bin at 0: gzip: truncated stream');
    const listed = await repos.scans.listProblems(scan.id, { offset: 0, limit: 10 });
    expect(listed.rows.map((p) => [p.source, p.level])).toEqual([['zstd', 'info'], ['gzip', 'error']]);
    expect((await readResultDocument(blobs, stored.resultBlobKey!)).summary).toEqual(summary);
  });

  for (const error of [
    new UnrecognisedImageError('no known firmware format; the file looks like ASCII text'),
    new DiskFullError('out of disk space while extracting (ENOSPC)'),
    // as it arrives from the scan thread: a plain Error with the name kept
    Object.assign(new Error('no known firmware format; the file is empty'), { name: 'UnrecognisedImageError' }),
  ]) {
    it(`fails the scan with the engine's own reason as it is: ${error.message}`, async () => {
      const scan = await createScan(repos, image, image.author!.id);
      expect(await runScan(deps(async () => { throw error; }), scan.id, new AbortController().signal, 1)).toBe('failed');
      expect((await repos.scans.getById(scan.id))!.error).toBe(error.message);
    });
  }

  it('stops when aborted and stores nothing', async () => {
    const scan = await createScan(repos, image, image.author!.id);
    const controller = new AbortController();
    const running = runScan(deps((_input, signal) => new Promise((_resolve, reject) => {
      signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    })), scan.id, controller.signal, 1);
    await new Promise((r) => setTimeout(r, 50));
    await repos.scans.transition(scan.id, ['running'], 'cancelled');
    controller.abort();
    expect(await running).toBe('cancelled');
    expect((await repos.scans.getById(scan.id))?.state).toBe('cancelled');
    expect(await repos.results.components(scan.id)).toEqual([]);
  });

  it('ends cancelled, not failed, when the scan was cancelled while its analysis failed (before the worker heard)', async () => {
    const scan = await createScan(repos, image, image.author!.id);
    const outcome = await runScan(deps(async () => {
      // the cancel request lands while the analysis runs; the worker's signal is not aborted yet
      await repos.scans.transition(scan.id, ['running'], 'cancelled');
      throw new UnrecognisedImageError('no known firmware format; the file looks like binary data of no known format');
    }), scan.id, new AbortController().signal, 1);
    expect(outcome).toBe('cancelled');
    const stored = (await repos.scans.getById(scan.id))!;
    expect(stored.state).toBe('cancelled');
    expect(stored.error).toBeNull();
  });

  it('skips a scan that was cancelled before it started', async () => {
    const scan = await createScan(repos, image, image.author!.id);
    await repos.scans.transition(scan.id, ['new'], 'cancelled');
    let called = false;
    expect(await runScan(deps(async (input) => {
      called = true;
      return result(input.imagePath);
    }), scan.id, new AbortController().signal, 1)).toBe('cancelled');
    expect(called).toBe(false);
  });
});

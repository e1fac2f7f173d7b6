// The disk filling up while a scan extracts ends the scan `failed` with "out of disk space while extracting", not
// `done` with files silently missing. The real engine runs in-process; writes into the extraction folder fail with
// ENOSPC by fault injection.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const fault = vi.hoisted(() => ({ code: undefined as string | undefined }));
vi.mock('node:fs', async (original) => (await import('../support/full-disk.js')).fsWithFaults(await original(), fault));

const { scan } = await import('../../src/engine/scan.js');
const { createRepositories } = await import('../../src/store/repositories.js');
const { runScan } = await import('../../src/services/run-scan.js');
const { createScan } = await import('../../src/services/scans.js');
const { FilesystemBlobStore } = await import('../../src/store/filesystem-blob-store.js');
const { openTestDatabase } = await import('../support/databases.js');

describe('disk full during a scan', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-diskfull-'));
  afterAll(async () => {
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
  });

  for (const armed of [true, false]) {
    it(armed ? 'ENOSPC from the sink ends the scan failed: out of disk space while extracting' : 'without the fault the same image ends done', async () => {
      const repos = createRepositories(database.db, database.dialect);
      const blobs = new FilesystemBlobStore(join(dataDir, 'blobs'));
      const org = await repos.identities.createOrg(`o${armed}`);
      const user = await repos.identities.createUser({ orgId: org.id, email: `u${armed}@o.test`, role: 'editor', passwordHash: null });
      const product = await repos.products.create({ orgId: org.id, name: 'p', authorId: user.id });
      const blob = await blobs.write(`images/${armed}`, gzipSync(randomBytes(4000).toString('hex')));
      const image = await repos.images.create({ productId: product.id, orgId: org.id, name: 'i', fileName: 'fw.gz', blob, authorId: user.id });
      const created = await createScan(repos, image, user.id);
      fault.code = armed ? 'ENOSPC' : undefined;
      try {
        const outcome = await runScan({
          repos, blobs, dataDir,
          analyse: (input, signal) => scan(input.imagePath, { workDir: input.workDir, imageName: input.imageName, signal }),
        }, created.id, new AbortController().signal, 1);
        const stored = (await repos.scans.getById(created.id))!;
        if (armed) {
          expect(outcome).toBe('failed');
          expect(stored.error).toBe('out of disk space while extracting (ENOSPC)');
        } else {
          expect(outcome).toBe('done');
          expect(stored.summary?.complete).toBe(true);
        }
      } finally {
        fault.code = undefined;
      }
    });
  }
});

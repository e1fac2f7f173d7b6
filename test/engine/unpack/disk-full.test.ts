// A full disk while extracting fails the scan (DiskFullError, "out of disk space while extracting") instead of
// ending it `done` with files silently missing. The disk is made full by fault injection: writes into the
// extraction folder fail with ENOSPC (or EDQUOT) once armed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const fault = vi.hoisted(() => ({ code: undefined as string | undefined }));

vi.mock('node:fs', async (original) => (await import('../../support/full-disk.js')).fsWithFaults(await original(), fault));

const { DiskFullError } = await import('../../../src/engine/errors.js');
const { scan } = await import('../../../src/engine/scan.js');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fs-diskfull-'));
});
afterEach(async () => {
  fault.code = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('disk full while extracting', () => {
  for (const code of ['ENOSPC', 'EDQUOT']) {
    it(`${code} from a write fails the scan with "out of disk space while extracting"`, async () => {
      const image = join(dir, 'fw.gz');
      await writeFile(image, gzipSync(randomBytes(4000).toString('hex')));
      fault.code = code;
      const error = await scan(image, { workDir: join(dir, 'work') }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DiskFullError);
      expect((error as Error).message).toBe(`out of disk space while extracting (${code})`);
    });
  }

  it('without the fault the same image is extracted and complete (the hook is what fails it)', async () => {
    const image = join(dir, 'fw.gz');
    await writeFile(image, gzipSync(randomBytes(4000).toString('hex')));
    const result = await scan(image, { workDir: join(dir, 'work') });
    expect(result.summary).toMatchObject({ complete: true, filesExtracted: 1 });
  });

  it('another filesystem error on one entry is recorded as an error problem and the scan goes on', async () => {
    const image = join(dir, 'fw.gz');
    await writeFile(image, gzipSync(randomBytes(4000).toString('hex')));
    fault.code = 'EIO';
    const result = await scan(image, { workDir: join(dir, 'work') });
    expect(result.summary!.complete).toBe(false);
    expect(result.summary!.incompleteReasons[0]).toMatch(/not extracted: EIO/);
  });
});

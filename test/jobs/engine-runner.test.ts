// Scan threads are kept between scans on the same database (warm code, connection and parsed records), while a
// thread whose scan failed is ended so that no scan inherits a broken one's state; idle threads can be closed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeScanThreads, runEngineInThread, scanThreadStats } from '../../src/jobs/engine-runner.js';

describe('scan threads', () => {
  let dir: string;
  let database: { dataDir: string };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fs-threads-'));
    database = { dataDir: join(dir, 'data') };
  });
  afterAll(async () => {
    await closeScanThreads(database);
    await rm(dir, { recursive: true, force: true });
  });

  const run = (imagePath: string, n: number) =>
    runEngineInThread({ imagePath, imageName: 'fw.bin.gz', workDir: join(dir, `work-${n}`), database }, { signal: new AbortController().signal });

  it('runs the next scan in the same thread, and a new one after a failure', async () => {
    const image = join(dir, 'blob-key');
    await writeFile(image, zlib.gzipSync(Buffer.from('#!/bin/sh\necho firmware\n')));
    const before = scanThreadStats().started;

    const first = await run(image, 1);
    expect(first.image.fileName).toBe('fw.bin.gz');
    expect(first.files.map((f) => f.path)).toContain('fw.bin.gz');
    expect(scanThreadStats()).toMatchObject({ started: before + 1, idle: 1 });
    const second = await run(image, 2);
    expect(second.files.length).toBe(first.files.length);
    expect(scanThreadStats()).toMatchObject({ started: before + 1, idle: 1 });

    await expect(run(join(dir, 'missing'), 3)).rejects.toThrow(/missing/);
    expect(scanThreadStats()).toMatchObject({ started: before + 1, idle: 0 });
    await run(image, 4);
    expect(scanThreadStats()).toMatchObject({ started: before + 2, idle: 1 });

    await closeScanThreads(database);
    expect(scanThreadStats().idle).toBe(0);
  }, 60_000);
});

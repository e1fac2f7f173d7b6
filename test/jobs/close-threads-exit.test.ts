// A process whose only pending work is closing an idle scan thread waits for the thread to end: the idle thread
// is unref'd, and closing it used to leave nothing that kept the event loop alive, so Node exited under a
// top-level `await server.close()` with code 13 (an unsettled top-level await) while the thread was mid-close.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { expect, it } from 'vitest';

it('closing an idle scan thread keeps the process alive until the thread has ended', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fs-close-threads-'));
  try {
    const image = join(dir, 'fw.bin.gz');
    writeFileSync(image, zlib.gzipSync(Buffer.from('#!/bin/sh\necho firmware\n')));
    const runner = new URL('../../src/jobs/engine-runner.ts', import.meta.url).href;
    const script = join(dir, 'close.mts');
    writeFileSync(script, `
      import { closeScanThreads, runEngineInThread, scanThreadStats } from ${JSON.stringify(runner)};
      const database = { dataDir: ${JSON.stringify(join(dir, 'data'))} };
      await runEngineInThread({ imagePath: ${JSON.stringify(image)}, imageName: 'fw.bin.gz', workDir: ${JSON.stringify(join(dir, 'work'))}, database }, { signal: new AbortController().signal });
      console.log('idle threads', scanThreadStats().idle);
      await closeScanThreads(database);
      console.log('closed');
    `);
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 60_000 });
    expect(child.stdout, child.stderr).toBe('idle threads 1\nclosed\n');
    expect(child.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);

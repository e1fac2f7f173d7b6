// The same image gives the same result, byte for byte (timings aside): the SquashFS handler writes files
// concurrently, so the scan must not depend on the order they land in.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scan } from '../../src/engine/scan.js';
import type { ScanResult } from '../../src/engine/types.js';
import { needCommands } from '../support/requirements.js';

const haveTools = needCommands(['mksquashfs'], 'scan determinism (a SquashFS built by mksquashfs)');

/** The result as JSON without what measures time. */
function stable(result: ScanResult): string {
  const { durationMs: _d, ...stats } = result.stats;
  const summary = result.summary ? { ...result.summary, phases: {}, durationMs: 0 } : undefined;
  return JSON.stringify({ ...result, stats, summary });
}

describe.runIf(haveTools)('scan determinism', () => {
  let dir: string;
  let image: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fs-determinism-'));
    const tree = join(dir, 'tree');
    // files of very different sizes in several folders, so their writes finish out of order
    for (let i = 0; i < 120; i++) {
      const folder = join(tree, `d${i % 7}`);
      await mkdir(folder, { recursive: true });
      // incompressible bodies of 90 bytes to 8 KB (a high compression ratio would trip the unpacker's bomb limit)
      const filler = Array.from({ length: 1 + ((i * 997) % 90) }, (_, n) => `${createHash('sha256').update(`${i}/${n}`).digest('base64')}\n`).join('');
      const body = i % 3 === 0 ? `#!/bin/sh\ntelnetd -l /bin/sh\necho ${i}\n${filler}` : `password=secret${i}\n${filler}`;
      await writeFile(join(folder, `f${i}.txt`), body);
    }
    // files with a gzip stream between unknown bytes: each leaves unknown chunks, listed as its container finishes
    await mkdir(join(tree, 'blobs'), { recursive: true });
    for (let i = 0; i < 12; i++) {
      const noise = (n: number) => Buffer.from(Array.from({ length: n }, (_, k) => createHash('sha256').update(`${i}:${k}`).digest()[0]!));
      await writeFile(join(tree, 'blobs', `b${i}.bin`), Buffer.concat([noise(300 + i * 97), gzipSync(Buffer.from(`payload ${i}\n`.repeat(50))), noise(200 + i * 31)]));
    }
    await mkdir(join(tree, 'etc'), { recursive: true });
    await writeFile(join(tree, 'etc', 'shadow'), 'root::0:0:99999:7:::\n');
    image = join(dir, 'fw.squashfs');
    execFileSync('mksquashfs', [tree, image, '-comp', 'gzip', '-noappend', '-quiet', '-no-progress'], { stdio: 'ignore' });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives byte-identical JSON for the same image', async () => {
    const first = await scan(image, { workDir: join(dir, 'work-1'), imageName: 'fw.squashfs' });
    const second = await scan(image, { workDir: join(dir, 'work-2'), imageName: 'fw.squashfs' });
    expect(first.files.length).toBeGreaterThan(120);
    expect(first.findings.length).toBeGreaterThan(0);
    expect(stable(second)).toBe(stable(first));
    // listed by path, the image first
    const paths = first.files.map((f) => f.path);
    expect(paths).toEqual([...paths].sort());
    expect(paths[0]).toBe('fw.squashfs');
    // unknown chunks in path and offset order
    expect(first.unknownChunks.length).toBeGreaterThan(1);
    const chunkKeys = first.unknownChunks.map((c) => `${c.path}\0${String(c.offset).padStart(12, '0')}`);
    expect(chunkKeys).toEqual([...chunkKeys].sort());
  });
});

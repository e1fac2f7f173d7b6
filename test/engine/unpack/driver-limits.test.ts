// Limits and name clashes through the driver with the real handlers: a limit hit in one branch stops that branch
// only, the byte budget counts only what is kept, and clashing archive names keep every entry with a unique path
// whose sha256 matches the file on disk.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import tarStream from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileNode } from '../../../src/engine/types.js';
import { unpack, type UnpackResult } from '../../../src/engine/unpack/driver.js';
import { DEFAULT_LIMITS, resolveLimits } from '../../../src/engine/unpack/limits.js';
import { box, boxHandler } from './driver-helpers.js';
import { haveTool } from './filesystems/fs-image-harness.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fs-driver-limits-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

async function tar(entries: Array<{ name: string; body?: Buffer | string; type?: 'file' | 'directory' }>): Promise<Buffer> {
  const pack = tarStream.pack();
  const parts: Buffer[] = [];
  pack.on('data', (c: unknown) => {
    parts.push(c as Buffer);
  });
  const done = new Promise<void>((r) => pack.on('end', () => r()));
  for (const e of entries) pack.entry({ name: e.name, type: e.type ?? 'file' }, e.body ?? '');
  pack.finalize();
  await done;
  return Buffer.concat(parts);
}

async function unpackBytes(data: Buffer, options: Parameters<typeof unpack>[2] = {}): Promise<UnpackResult> {
  const image = join(dir, 'image.bin');
  await writeFile(image, data);
  return unpack(image, join(dir, 'out'), options);
}

const byPath = (result: UnpackResult, suffix: string): FileNode | undefined => result.files.find((f) => f.path.endsWith(suffix));

/** Node paths are unique, every file node is on disk with its sha256, and the bytes counted are the bytes kept. */
async function expectTreeMatchesDisk(result: UnpackResult): Promise<void> {
  const paths = result.files.map((f) => f.path);
  expect(new Set(paths).size).toBe(paths.length);
  let kept = 0;
  for (const node of result.files.slice(1)) {
    if (node.kind !== 'file') continue;
    const data = await readFile(join(dir, 'out', node.path));
    expect(sha(data), node.path).toBe(node.sha256);
    kept += data.length;
  }
  expect(result.stats.bytesExtracted).toBe(kept);
}

describe('limits stop only their branch', () => {
  it.runIf(haveTool('mksquashfs'))('a SquashFS file over the byte budget is dropped; the rest of the SquashFS and the tar go on', async () => {
    const src = join(dir, 'src');
    await mkdir(src);
    await writeFile(join(src, 'a-small.txt'), 'small file\n');
    await writeFile(join(src, 'z-big.bin'), Buffer.alloc(3 * 1024 * 1024));
    execFileSync('mksquashfs', [src, join(dir, 'fs.squashfs'), '-comp', 'gzip', '-noappend', '-quiet', '-no-progress'], { stdio: 'ignore' });
    const good = 'the good payload\n'.repeat(100);
    const image = await tar([
      { name: 'a-fs.squashfs', body: await readFile(join(dir, 'fs.squashfs')) },
      { name: 'b-good.gz', body: gzipSync(good) },
    ]);
    const result = await unpackBytes(image, { limits: { maxTotalBytes: 1024 * 1024 } });
    expect(byPath(result, '/b-good')?.sha256).toBe(sha(good));
    expect(byPath(result, '/a-small.txt')?.sha256).toBe(sha('small file\n'));
    expect(byPath(result, '/z-big.bin')).toBeUndefined();
    expect(result.problems.filter((p) => p.kind === 'limit')).toEqual([
      expect.objectContaining({ source: 'squashfs-v4', message: expect.stringMatching(/^z-big\.bin: not extracted: it grew past/) }),
    ]);
    await expectTreeMatchesDisk(result);
  });

  it('a bomb counts only the bytes it kept, and later files of the same chunk are kept', async () => {
    const bomb = boxHandler({
      async extract(reader, chunk, sink) {
        await sink.file('huge', (async function* () {
          for (let i = 0; i < 1000; i++) yield Buffer.alloc(64 * 1024);
        })());
        await sink.file('after', Buffer.from('still here'));
      },
    });
    const result = await unpackBytes(box('x'), { handlers: [bomb], limits: { maxTotalBytes: 4 * 1024 * 1024 } });
    expect(result.files.map((f) => f.path)).toEqual(['image.bin', 'image.bin_extract/after']);
    expect(result.stats.bytesExtracted).toBe('still here'.length);
    expect(result.problems).toEqual([expect.objectContaining({ kind: 'limit', message: expect.stringContaining('huge: not extracted') })]);
    await expectTreeMatchesDisk(result);
  });

  it('a byte LimitError thrown by a handler stops its chunk only', async () => {
    const greedy = boxHandler({
      id: 'greedy',
      magics: [{ bytes: Buffer.from('GRDY') }],
      async chunk(reader, start) {
        return { start, end: start + 4 };
      },
      async extract() {
        const { LimitError } = await import('../../../src/engine/unpack/handler.js');
        throw new LimitError('bytes', 'greedy: decoded size exceeds the budget');
      },
    });
    const result = await unpackBytes(Buffer.concat([Buffer.from('GRDY'), box('after the greedy chunk')]), { handlers: [greedy, boxHandler()] });
    expect(result.files.map((f) => f.path)).toContain('image.bin_extract/4-34.box/payload');
    expect(result.problems).toContainEqual(expect.objectContaining({ source: 'greedy', kind: 'limit', offset: 0 }));
    expect(result.problems.some((p) => p.message.startsWith('extraction stopped'))).toBe(false);
  });

  it('the file-count limit stops extraction and keeps every file already extracted', async () => {
    const image = await tar(['one', 'two', 'three', 'four', 'five'].map((name) => ({ name, body: `${name}\n` })));
    const result = await unpackBytes(image, { limits: { maxFiles: 3 } });
    expect(result.files.slice(1).map((f) => f.fsPath)).toEqual(['/one', '/two', '/three']);
    expect(result.problems).toContainEqual(expect.objectContaining({ kind: 'limit', message: expect.stringContaining('file count limit of 3') }));
    await expectTreeMatchesDisk(result);
  });
});

describe('name clashes in an archive keep every entry', () => {
  it('a file then a directory of the same name, a file over a directory, the same name twice', async () => {
    const image = await tar([
      { name: 'a', body: 'file a' },
      { name: 'a/b', body: 'under a' },
      { name: 'd', type: 'directory' },
      { name: 'd', body: 'file d' },
      { name: 'x', body: 'first x' },
      { name: 'x', body: 'second x' },
      { name: 'z', body: 'last' },
    ]);
    const result = await unpackBytes(image);
    expect(result.problems.filter((p) => p.kind !== 'warning')).toEqual([]);
    expect(result.files.slice(1).map((f) => f.path.replace('image.bin_extract/', ''))).toEqual(['a', 'a~1/b', 'd', 'd~1', 'x', 'x~1', 'z']);
    expect(byPath(result, '/x')?.sha256).toBe(sha('first x'));
    expect(byPath(result, '/x~1')?.sha256).toBe(sha('second x'));
    expect(result.problems.filter((p) => p.message.startsWith('name clash'))).toHaveLength(3);
    await expectTreeMatchesDisk(result);
  });
});

describe('default byte limit', () => {
  it('is 20x the input with no floor, and at most the ceiling', () => {
    expect(resolveLimits(1000).maxTotalBytes).toBe(20_000);
    expect(resolveLimits(10 * 1024 ** 3).maxTotalBytes).toBe(DEFAULT_LIMITS.maxTotalBytesCeiling);
    expect(resolveLimits(1000, { maxTotalBytes: 5 }).maxTotalBytes).toBe(5);
  });
});

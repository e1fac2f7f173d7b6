// `firmscope scan` and `unpack` of an image of 16 MiB or more run the command again in a thread with the engine's
// heap (src/cli/command-thread.ts): the output, the files and the exit code are those of the command run on the
// main thread, which smaller images keep.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE_THREAD_MIN_BYTES } from '../../src/cli/command-thread.js';
import { childEnv, firmscopeCommand, projectRoot } from '../support/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'fs-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const THREAD_NOTE = 'the command runs in a thread with the engine heap';

function firmscope(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [...firmscopeCommand(), ...args], {
    cwd: projectRoot,
    encoding: 'utf8',
    env: childEnv({ FIRMSCOPE_DEBUG: '1', FIRMSCOPE_DATA_DIR: join(dir, 'data') }),
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/**
 * A gzip stream of `size` bytes behind 64 bytes of padding, stored uncompressed (level 0) so that the image is as
 * large as its content. The content is one repeated byte: random bytes made the summaries differ now and then,
 * when they held a zlib or other magic whose chunk then failed ("zlib: incorrect data check").
 */
function gzipImage(name: string, size: number): string {
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat([Buffer.alloc(64, 0x11), zlib.gzipSync(Buffer.alloc(size, 0x5a), { level: 0 })]));
  return path;
}

describe('the engine thread of scan and unpack', () => {
  it('unpacks a large image in the thread, with the output and files of the main thread', () => {
    const large = gzipImage('large.bin', ENGINE_THREAD_MIN_BYTES);
    const run = firmscope(['unpack', large, '-o', join(dir, 'out-large')]);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain(THREAD_NOTE);
    expect(run.stdout).toContain('files: 1 nodes (1 file)');
    expect(run.stdout).toContain('formats: gzip ×1');
    const nodes = JSON.parse(readFileSync(join(dir, 'out-large', 'files.json'), 'utf8')) as Array<{ path: string; size: number }>;
    expect(nodes.find((n) => n.path.endsWith('/large.bin'))?.size).toBe(ENGINE_THREAD_MIN_BYTES);

    const small = gzipImage('small.bin', 4096);
    const direct = firmscope(['unpack', small, '-o', join(dir, 'out-small')]);
    expect(direct.status).toBe(0);
    expect(direct.stderr).not.toContain(THREAD_NOTE);
    expect(direct.stderr).not.toContain('other threads run behind');
    // the same summary, but for the folder and the sizes and times
    const shape = (out: string, folder: string) => out.replaceAll(folder, 'OUT').replace(/\d+/g, 'N');
    expect(shape(direct.stdout, 'out-small')).toBe(shape(run.stdout, 'out-large'));
  }, 120_000);

  it("scans a large image in the thread with the digests the main thread computed while the thread started", () => {
    const large = gzipImage('hashed.bin', ENGINE_THREAD_MIN_BYTES);
    const out = join(dir, 'hashed.json');
    const run = firmscope(['scan', large, '-q', '--no-cache', '--work-dir', join(dir, 'work-hashed'), '-o', out]);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain(THREAD_NOTE);
    expect(run.stderr).toContain('the image digests were computed while the thread started');
    // the process's other threads (libuv's decoders among them) run behind the engine's
    expect(run.stderr).toMatch(/firmscope: [1-9]\d* other threads run behind the engine's thread/);
    // the thread compiles the engine from the build's code cache: the heap's flag is back to V8's default by then
    if (firmscopeCommand()[0]!.endsWith('firmscope.js')) expect(run.stderr).toMatch(/scan-modules\.cjs: code cache used/);
    const data = readFileSync(large);
    const result = JSON.parse(readFileSync(out, 'utf8')) as { image: { hashes: Record<string, string> } };
    expect(result.image.hashes).toEqual({
      sha256: createHash('sha256').update(data).digest('hex'),
      sha1: createHash('sha1').update(data).digest('hex'),
      md5: createHash('md5').update(data).digest('hex'),
    });
  }, 120_000);

  it("passes the command's exit code and messages through", () => {
    const noise = join(dir, 'noise.bin');
    writeFileSync(noise, randomBytes(ENGINE_THREAD_MIN_BYTES));
    const run = firmscope(['scan', noise, '-q', '--no-cache', '--work-dir', join(dir, 'work')]);
    expect(run.stderr).toContain(THREAD_NOTE);
    expect(run.stderr).toContain('no known firmware format');
    expect(run.status).toBe(1);
  }, 120_000);
});

// The limit flags of `firmscope unpack` and `firmscope scan`: parsed and validated by commander (a bad value
// stops the command with what was expected), passed to the engine, and a limit that is hit shows in the output.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { CommanderError } from 'commander';
import tar from 'tar-stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { register as registerScan } from '../../src/cli/scan.js';
import { limitsFromFlags, register as registerUnpack } from '../../src/cli/unpack.js';
import type { ScanResult } from '../../src/engine/types.js';
import { runCli, useCliFolder } from '../support/cli.js';

// `scan` consults the local vulnerability database of the data folder: useCliFolder keeps it inside the test's folder.
const folder = useCliFolder('fs-cli-limits-');
let dir: string;
beforeEach(() => {
  dir = folder();
});

/** Runs one command; resolves to what it printed, or rejects with commander's error (its text in `stderr`). */
const cli = runCli;

/** A gzip-compressed tar of `count` small text files. */
async function tarGz(count: number): Promise<Buffer> {
  const pack = tar.pack();
  for (let i = 0; i < count; i++) pack.entry({ name: `file-${i}.txt` }, `file number ${i}\n`.repeat(50));
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return zlib.gzipSync(Buffer.concat(chunks));
}

async function errorOf(promise: Promise<unknown>): Promise<CommanderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CommanderError);
  return error as CommanderError;
}

describe('limit flags', () => {
  it('turn into engine limits: sizes with units, the timeout in milliseconds, absent flags left out', () => {
    expect(limitsFromFlags({})).toEqual({});
    expect(limitsFromFlags({ maxDepth: 4, maxBytes: 512 * 1024 ** 2, maxFiles: 10, timeout: 1.5 })).toEqual({
      maxDepth: 4,
      maxTotalBytes: 512 * 1024 ** 2,
      maxFiles: 10,
      timeoutMs: 1500,
    });
  });

  it('unpack --max-files 3 stops extraction and reports a limit problem in the summary', async () => {
    const image = join(dir, 'fw.tar.gz');
    await writeFile(image, await tarGz(8));
    const { stdout } = await cli(registerUnpack, ['unpack', image, '-o', join(dir, 'out'), '--max-files', '3', '--max-bytes', '64M']);
    expect(stdout).toMatch(/\[limit\] .*file count limit of 3 reached/);
    expect(stdout).not.toContain('problems: 0');
    const nodes = JSON.parse(await readFile(join(dir, 'out', 'files.json'), 'utf8')) as unknown[];
    expect(nodes.length - 1).toBeLessThanOrEqual(3);
  });

  it('unpack within its limits extracts everything', async () => {
    const image = join(dir, 'fw.tar.gz');
    await writeFile(image, await tarGz(8));
    // The default byte limit is a multiple of the image's size, too small for this highly compressible one.
    const { stdout } = await cli(registerUnpack, ['unpack', image, '-o', join(dir, 'out'), '--max-bytes', '1M']);
    expect(stdout).toContain('problems: 0');
    expect(stdout).toContain('files: 9 nodes');
  });

  it('unpack --max-bytes 2K and --max-depth 1 each stop extraction with their own reason', async () => {
    const image = join(dir, 'fw.tar.gz');
    await writeFile(image, await tarGz(8));
    const bytes = await cli(registerUnpack, ['unpack', image, '-o', join(dir, 'bytes'), '--max-bytes', '2K']);
    expect(bytes.stdout).toMatch(/\[limit\] .*2048 bytes/);
    const depth = await cli(registerUnpack, ['unpack', image, '-o', join(dir, 'depth'), '--max-depth', '1', '--max-bytes', '64M']);
    expect(depth.stdout).toMatch(/\[limit\] .*depth limit of 1 reached/);
    expect(depth.stdout).toContain('files: 1 nodes');
  });

  it('scan --max-files 3 records the limit problem in the result', async () => {
    const image = join(dir, 'fw.tar.gz');
    await writeFile(image, await tarGz(8));
    const output = join(dir, 'result.json');
    await cli(registerScan, ['scan', image, '-o', output, '-q', '--no-vulndb', '--max-files', '3', '--max-bytes', '64M', '--max-depth', '8', '--timeout', '60']);
    const result = JSON.parse(await readFile(output, 'utf8')) as ScanResult;
    expect(result.problems.filter((p) => p.kind === 'limit').map((p) => p.message)).toContainEqual(expect.stringContaining('file count limit of 3 reached'));
    expect(result.files.length - 1).toBeLessThanOrEqual(3);
  });

  it.each([
    ['unpack', '--max-files', '0', 'expected an integer from 1 to 100000000'],
    ['unpack', '--max-files', '2.5', 'expected an integer from 1 to 100000000'],
    ['unpack', '--max-depth', 'deep', 'expected an integer from 1 to 64'],
    ['unpack', '--max-bytes', '12X', 'expected a size in bytes, optionally with K, M, G or T (e.g. 512M, 4G)'],
    ['unpack', '--timeout', '0', 'expected a number of seconds above 0, at most 604800'],
    ['scan', '--timeout', 'soon', 'expected a number of seconds above 0, at most 604800'],
    ['scan', '--max-bytes', '-1G', 'expected a size in bytes, optionally with K, M, G or T (e.g. 512M, 4G)'],
    ['scan', '--max-depth', '65', 'expected an integer from 1 to 64'],
  ])('%s %s %s is refused before anything runs', async (command, flag, value, expected) => {
    const image = join(dir, 'x.bin');
    await writeFile(image, 'x');
    const args = command === 'unpack' ? ['unpack', image, '-o', join(dir, 'out'), flag, value] : ['scan', image, '-q', '--no-vulndb', flag, value];
    const error = await errorOf(cli(command === 'unpack' ? registerUnpack : registerScan, args));
    expect(error.code).toBe('commander.invalidArgument');
    expect(error.message).toContain(`'${value}' is invalid. ${expected}`);
    expect(error.message).toContain(flag);
  });
});

// `firmscope scan` says whether its result can be trusted: a one-screen summary on standard error, exit 1 with the
// engine's reason for an image with nothing recognised, exit 3 with --fail-on-incomplete for a broken container.
// The standard output (JSON, reports) is unchanged.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from 'vitest';
import { register } from '../../src/cli/scan.js';
import type { ScanResult } from '../../src/engine/types.js';
import { runCli, useCliFolder } from '../support/cli.js';
import { corpus, haveShared, sharedPath } from '../support/shared.js';

const folder = useCliFolder('fs-cli-outcome-');
let dir: string;
beforeEach(() => {
  dir = folder();
});

async function truncatedGzip(): Promise<string> {
  const image = join(dir, 'broken.gz');
  await writeFile(image, gzipSync(randomBytes(100_000)).subarray(0, 60_000));
  return image;
}

describe('firmscope scan outcome', () => {
  it('a truncated gzip: the summary says why the analysis is incomplete, exit 0 without the flag', async () => {
    const run = await runCli(register, ['scan', await truncatedGzip(), '--no-vulndb', '-f', 'json']);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain('firmscope: broken.gz (gzip, 60000 bytes)');
    expect(run.stderr).toContain('  files: 0 extracted (0 bytes)');
    expect(run.stderr).toContain('  components: 0');
    expect(run.stderr).toContain('  findings: 0 (critical 0, high 0, medium 0, low 0, informational 0)');
    expect(run.stderr).toContain('  problems: 1 error, 0 warning, 0 info');
    expect(run.stderr).toContain('  analysis incomplete: broken.gz at 0: gzip: truncated stream');
    const result = JSON.parse(run.stdout) as ScanResult;
    expect(result.summary).toMatchObject({ complete: false });
  });

  it('--fail-on-incomplete exits 3 after writing the result; -q keeps only the incomplete line', async () => {
    const output = join(dir, 'out.json');
    const run = await runCli(register, ['scan', await truncatedGzip(), '--no-vulndb', '-q', '--fail-on-incomplete', '-o', output]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toMatch(/^firmscope: analysis incomplete: broken\.gz at 0: gzip: truncated stream/);
    expect(run.stderr).not.toContain('components:');
    expect(JSON.parse(await readFile(output, 'utf8')).summary.complete).toBe(false);
  });

  it('a complete image with --fail-on-incomplete exits 0 and says "analysis complete"', async () => {
    const image = join(dir, 'ok.gz');
    await writeFile(image, gzipSync(randomBytes(2000).toString('hex')));
    const run = await runCli(register, ['scan', image, '--no-vulndb', '--fail-on-incomplete']);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain('  formats: gzip ×1 (100.0% of the image)');
    expect(run.stderr).toContain('  analysis complete');
  });

  it('without -o or -f only the summary is printed, not the full result', async () => {
    const image = join(dir, 'ok.gz');
    await writeFile(image, gzipSync(randomBytes(2000).toString('hex')));
    const run = await runCli(register, ['scan', image, '--no-vulndb']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('  analysis complete');
    expect(run.stderr).toContain('the full result: -o FILE');
  });

  it('a missing file is named plainly, never a raw ENOENT', async () => {
    await expect(runCli(register, ['scan', join(dir, 'nope.bin')])).rejects.toThrow(`file not found: ${join(dir, 'nope.bin')}`);
  });

  it('a plain text file: exit 1 with the reason, nothing on standard output', async () => {
    const image = join(dir, 'notes.txt');
    await writeFile(image, 'just some notes\n'.repeat(20));
    const run = await runCli(register, ['scan', image, '--no-vulndb', '-q']);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe('firmscope: no known firmware format; the file looks like ASCII text\n');
    expect(run.stdout).toBe('');
  });

  it.runIf(haveShared('corpus', 'trendnet-tew733gr-rootfs.squashfs'))('a truncated corpus SquashFS exits 3 with --fail-on-incomplete', async () => {
    const image = join(dir, 'rootfs.squashfs');
    await writeFile(image, (await readFile(corpus('trendnet-tew733gr-rootfs.squashfs'))).subarray(0, 1_500_000));
    const run = await runCli(register, ['scan', image, '--no-vulndb', '--fail-on-incomplete', '-o', join(dir, 'out.json')]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain('analysis incomplete: rootfs.squashfs at 0: squashfs-v4: truncated: SquashFS says 3647665 bytes, only 1500000 available');
  });

  it.runIf(haveShared('corpus', 'busybox-mipsel'))('the corpus busybox alone is complete: exit 0 with --fail-on-incomplete', async () => {
    const run = await runCli(register, ['scan', corpus('busybox-mipsel'), '--no-vulndb', '--fail-on-incomplete', '-o', join(dir, 'out.json')]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain('  analysis complete');
  });

  it.runIf(haveShared('corpus', 'ssl.key'))('gates offline: --fail-on high exits 2 with what failed, --fail-on critical passes, a bad level is refused', async () => {
    const image = join(dir, 'keys.tar');
    execFileSync('tar', ['cf', image, '-C', sharedPath('corpus'), 'ssl.key']);
    const high = await runCli(register, ['scan', image, '--no-vulndb', '--no-cache', '--fail-on', 'high']);
    expect(high.exitCode).toBe(2);
    expect(high.stderr).toMatch(/firmscope: gate failed \(--fail-on high\): 1 finding \(1 high\)\n  high +private-key-in-image/);
    const critical = await runCli(register, ['scan', image, '--no-vulndb', '--no-cache', '--fail-on', 'critical', '--fail-on-kev']);
    expect(critical.exitCode).toBe(0);
    expect(critical.stderr).not.toContain('gate failed');
    await expect(runCli(register, ['scan', image, '--fail-on', 'severe'])).rejects.toThrow('--fail-on must be one of critical, high, medium, low');
  });
});

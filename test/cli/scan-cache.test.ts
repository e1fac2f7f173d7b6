// `firmscope scan` keeps its analysis results in a local cache: in $XDG_CACHE_HOME/firmscope by default (the
// test's folder here, see useCliFolder), in --cache-dir when given, nowhere with --no-cache. A rescan of the same
// image reuses the whole analysis and prints the same result.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { register } from '../../src/cli/scan.js';
import type { ScanResult } from '../../src/engine/types.js';
import { runCli, useCliFolder } from '../support/cli.js';
import { corpus, haveShared } from '../support/shared.js';

const folder = useCliFolder('fs-cli-cache-');

/** The result without timings and the cache's counts. */
function stable(result: ScanResult): string {
  const { durationMs: _d, ...stats } = result.stats;
  const { cache: _c, ...summary } = result.summary!;
  return JSON.stringify({ ...result, stats, summary: { ...summary, phases: {}, durationMs: 0 } });
}

describe.runIf(haveShared('corpus', 'busybox-mipsel'))('firmscope scan and its analysis cache', () => {
  const scanTo = async (name: string, ...flags: string[]) => {
    const output = join(folder(), name);
    const run = await runCli(register, ['scan', corpus('busybox-mipsel'), '--no-vulndb', '-o', output, ...flags]);
    return { run, result: JSON.parse(await readFile(output, 'utf8')) as ScanResult };
  };

  it('keeps results in the user cache folder and reuses them for the same image', async () => {
    const first = await scanTo('1.json');
    expect(first.result.summary?.cache).toMatchObject({ image: 'miss', filesReused: 0 });
    expect(existsSync(join(folder(), 'cache', 'firmscope', 'analysis-cache.db'))).toBe(true);
    const second = await scanTo('2.json');
    expect(second.result.summary?.cache).toEqual({ image: 'hit', filesReused: 0, filesAnalysed: 0 });
    expect(second.run.stderr).toContain('analysis cache: the image was analysed before');
    expect(stable(second.result)).toBe(stable(first.result));
  }, 120_000);

  it('uses --cache-dir instead, and no cache at all with --no-cache', async () => {
    const dir = join(folder(), 'elsewhere');
    await scanTo('1.json', '--cache-dir', dir);
    expect((await scanTo('2.json', '--cache-dir', dir)).result.summary?.cache?.image).toBe('hit');
    const none = await scanTo('3.json', '--no-cache');
    expect(none.result.summary?.cache).toBeUndefined();
    expect(existsSync(join(folder(), 'cache'))).toBe(false);
  }, 120_000);
});

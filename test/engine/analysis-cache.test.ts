// The analysis cache gives the result an uncached scan gives: corpus images scanned cold, again from the image's
// snapshot, and again from the files' results alone (also under another image name, which changes every path of
// the tree) give the same JSON apart from timings and the cache's own counts. Certificates are checked against the date of the scan that reuses them, and the vulnerability
// matcher runs again against the database (with the kernel evidence the first scan kept).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisCache } from '../../src/engine/analysis-cache.js';
import { MemoryCache, stable } from '../support/memory-cache.js';
import { analyzers } from '../../src/engine/analyzers.js';
import { createCryptoAnalyzer } from '../../src/engine/crypto/analyzer.js';
import { scan, type ScanOptions } from '../../src/engine/scan.js';
import { readFeeds } from '../../src/engine/vulns/feed-reader.js';
import { MemoryVulnerabilitySource } from '../../src/engine/vulns/memory-source.js';
import { corpus, haveShared, sharedPath } from '../support/shared.js';

const IMAGES = ['openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin', 'OVMF_VARS.secboot.fd', 'trendnet-tew733gr-rootfs.squashfs', 'nmap.exe', 'pkcs12.p12', 'bzImage_xz'];
const haveCorpus = haveShared('corpus');
const withVulns = haveCorpus && haveShared('vulndata', 'nvd-corpus');

describe.runIf(haveCorpus)('analysis cache on the corpus', () => {
  let dir: string;
  let vulnerabilities: MemoryVulnerabilitySource | undefined;
  let n = 0;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fs-analysis-cache-'));
    if (!withVulns) return;
    vulnerabilities = new MemoryVulnerabilitySource();
    for await (const item of readFeeds([sharedPath('vulndata', 'nvd-corpus')])) {
      if (item.kind === 'error') throw new Error(`${item.file}: ${item.message}`);
      vulnerabilities.apply(item);
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const run = (name: string, options: Partial<ScanOptions> = {}) => scan(corpus(name), { workDir: join(dir, `w${n++}`), vulnerabilities, ...options });

  it.each(IMAGES)('%s: cold, image-cached and file-cached scans give the same JSON', async (name) => {
    const cold = await run(name);
    const cache = new MemoryCache();
    const first = await run(name, { analysisCache: cache });
    expect(first.summary?.cache).toMatchObject({ image: 'miss', filesReused: 0 });
    const again = await run(name, { analysisCache: cache });
    expect(again.summary?.cache).toEqual({ image: 'hit', filesReused: 0, filesAnalysed: 0 });
    const files = cache.filesOnly();
    const fromFiles = await run(name, { analysisCache: files });
    expect(fromFiles.summary?.cache).toMatchObject({ image: 'miss', filesAnalysed: 0 });
    expect(fromFiles.summary!.cache!.filesReused).toBe(first.summary!.cache!.filesAnalysed);
    expect(stable(first)).toBe(stable(cold));
    expect(stable(again)).toBe(stable(cold));
    expect(stable(fromFiles)).toBe(stable(cold));
    // under another name every path in the tree changes ('<name>_extract/…'): the files' results are still reused
    const renamed = await run(name, { imageName: `v2-${name}`, analysisCache: cache.filesOnly() });
    // (the image itself is named by its name: a single-file image has nothing to reuse)
    if (cold.files.some((f) => f.depth > 0 && f.kind === 'file')) expect(renamed.summary!.cache!.filesReused).toBeGreaterThan(0);
    expect(stable(renamed)).toBe(stable(await run(name, { imageName: `v2-${name}` })));
  }, 240_000);

  it('checks reused certificates against the date of the scan that reuses them', async () => {
    const at = (iso: string) => ({ analyzers: analyzers.map((a) => (a.id === 'crypto' ? createCryptoAnalyzer({ now: () => new Date(iso) }) : a)) });
    const cache = new MemoryCache();
    const then = await run('OVMF_VARS.secboot.fd', { ...at('2020-01-01T00:00:00Z'), analysisCache: cache });
    const later = await run('OVMF_VARS.secboot.fd', at('2040-01-01T00:00:00Z'));
    expect(stable(later)).not.toBe(stable(then)); // the certificates have expired in between
    const fromImage = await run('OVMF_VARS.secboot.fd', { ...at('2040-01-01T00:00:00Z'), analysisCache: cache });
    expect(fromImage.summary?.cache?.image).toBe('hit');
    expect(stable(fromImage)).toBe(stable(later));
    const fromFiles = await run('OVMF_VARS.secboot.fd', { ...at('2040-01-01T00:00:00Z'), analysisCache: cache.filesOnly() });
    expect(fromFiles.summary?.cache?.filesReused).toBeGreaterThan(0);
    expect(stable(fromFiles)).toBe(stable(later));
  }, 240_000);

  it('scans as without a cache when the cache fails to answer or to keep', async () => {
    const broken: AnalysisCache = { get: () => Promise.reject(new Error('down')), put: () => Promise.reject(new Error('down')) };
    const result = await run('nmap.exe', { analysisCache: broken });
    expect(result.summary?.cache).toMatchObject({ image: 'miss', filesReused: 0 });
    expect(stable(result)).toBe(stable(await run('nmap.exe')));
  }, 240_000);

  it('keys the malicious-code results by the rules: a changed custom rule is not reused', async () => {
    const rule = (text: string) => [{ id: 'r1', name: 'mine', source: `rule mine { strings: $a = "${text}" condition: $a }` }];
    const cache = new MemoryCache();
    await run('nmap.exe', { analysisCache: cache, rules: rule('Nmap') });
    const same = await run('nmap.exe', { analysisCache: cache, rules: rule('Nmap') });
    expect(same.summary?.cache?.image).toBe('hit');
    const files = cache.filesOnly();
    const changed = await run('nmap.exe', { analysisCache: files, rules: rule('nmap.org') });
    const cold = await run('nmap.exe', { rules: rule('nmap.org') });
    expect(changed.summary?.cache?.image).toBe('miss');
    expect(stable(changed)).toBe(stable(cold));
    // the binaries' and crypto results are reused, the rule scan is not
    expect(changed.summary!.cache!.filesReused).toBeGreaterThan(0);
    expect(changed.summary!.cache!.filesAnalysed).toBeGreaterThan(0);
  }, 240_000);
});

// End to end through scan(): the real corpus images, the inventory and the vulnerability matcher, with the two
// NVD records of the issue imported. Versions verified with `strings` (see corpus-match.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inventoryAnalyzer } from '../../../src/engine/inventory/inventory.analyzer.js';
import { scan } from '../../../src/engine/scan.js';
import type { ScanResult } from '../../../src/engine/types.js';
import { readFeeds } from '../../../src/engine/vulns/feed-reader.js';
import { MemoryVulnerabilitySource } from '../../../src/engine/vulns/memory-source.js';
import { vulnerabilityMatcherAnalyzer } from '../../../src/engine/vulns/vulnerability-matcher.analyzer.js';
import { corpus, haveShared, sharedPath } from '../../support/shared.js';

const ready = haveShared('vulndata', 'nvd-cve2.0-CVE-2012-0920.json') && haveShared('corpus', 'dropbearStaticMipsel.tar.bz2');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function source(): Promise<MemoryVulnerabilitySource> {
  const s = new MemoryVulnerabilitySource();
  const files = ['nvd-cve2.0-CVE-2012-0920.json', 'nvd-cve2.0-CVE-2021-42386.json'].map((f) => sharedPath('vulndata', f));
  for await (const item of readFeeds(files)) s.apply(item);
  return s;
}

async function scanWithVulns(name: string): Promise<ScanResult> {
  const workDir = mkdtempSync(join(tmpdir(), 'firmscope-vscan-'));
  dirs.push(workDir);
  return scan(corpus(name), { workDir, vulnerabilities: await source(), analyzers: [inventoryAnalyzer, vulnerabilityMatcherAnalyzer] });
}

const summary = (r: ScanResult) => r.findings.map((f) => `${f.pname} ${f.component?.name} ${f.component?.version}`).sort();

describe.runIf(ready)('scan() with the vulnerability matcher on the corpus', () => {
  it('Dropbear 0.52 from the static MIPS tarball yields CVE-2012-0920', async () => {
    const result = await scanWithVulns('dropbearStaticMipsel.tar.bz2');
    const dropbear = result.components.find((c) => c.name === 'dropbear');
    expect(dropbear?.version).toBe('0.52');
    expect(summary(result)).toEqual(['CVE-2012-0920 dropbear 0.52']);
    const finding = result.findings[0]!;
    expect(finding).toMatchObject({ findingType: 'dependencyVulnerability', severity: 'high', cvssLatestBaseScore: 7.1, isKev: false });
    expect(finding.occurrences.map((o) => o.path)).toEqual(dropbear!.paths);
  });

  it('BusyBox 1.31.0 (busybox-mipsel) yields CVE-2021-42386', async () => {
    const result = await scanWithVulns('busybox-mipsel');
    expect(result.components.find((c) => c.name === 'busybox')?.version).toBe('1.31.0');
    expect(summary(result)).toEqual(['CVE-2021-42386 busybox 1.31.0']);
  });

  it('the OpenWrt image: BusyBox 1.31.1 matches, Dropbear 2019.78 is outside CVE-2012-0920', async () => {
    const result = await scanWithVulns('openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin');
    // versions come from the opkg database (with package revisions); their CPEs carry the upstream versions
    const cpes = Object.fromEntries(result.components.filter((c) => ['busybox', 'dropbear'].includes(c.name)).map((c) => [c.name, c.cpe]));
    expect(cpes).toEqual({
      busybox: 'cpe:2.3:a:busybox:busybox:1.31.1:*:*:*:*:*:*:*',
      dropbear: 'cpe:2.3:a:dropbear_ssh_project:dropbear_ssh:2019.78:*:*:*:*:*:*:*',
    });
    expect(summary(result)).toEqual(['CVE-2021-42386 busybox 1.31.1-1']);
    expect((result.findings[0]!.match as any).matches[0]).toMatchObject({ version: '1.31.1', kind: 'range', range: { startIncluding: '1.16.0', endIncluding: '1.33.1' } });
  }, 180_000);
});

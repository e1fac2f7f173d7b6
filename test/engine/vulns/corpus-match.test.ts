// Matching the components found in the real corpus against the real NVD records. Versions verified with
// `strings`: dropbearStaticMipsel.tar.bz2 → dropbear 'SSH-2.0-dropbear_0.52' and libz.so.1.2.3; busybox-mipsel →
// 'BusyBox v1.31.0'; the OpenWrt image's SquashFS → /bin/busybox 'BusyBox v1.31.1', /usr/sbin/dropbear '2019.78',
// kernel 'Linux-5.4.43' (uImage name).
import { describe, expect, it } from 'vitest';
import { readFeeds } from '../../../src/engine/vulns/feed-reader.js';
import { VulnerabilityMatcher } from '../../../src/engine/vulns/matcher.js';
import { MemoryVulnerabilitySource } from '../../../src/engine/vulns/memory-source.js';
import type { Component } from '../../../src/engine/types.js';
import { haveShared, sharedPath } from '../../support/shared.js';

const hasData = haveShared('vulndata', 'nvd-corpus');

function component(name: string, vendor: string, product: string, version: string, part = 'a'): Component {
  return {
    ref: `${name}@${version}`, name, version, type: 'application', confidence: 1,
    cpe: `cpe:2.3:${part}:${vendor}:${product}:${version}:*:*:*:*:*:*:*`,
    paths: [`${name}-${version}`], evidence: [], foundBy: ['test'],
  };
}

const dropbear052 = component('dropbear', 'dropbear_ssh_project', 'dropbear_ssh', '0.52');
const dropbear201978 = component('dropbear', 'dropbear_ssh_project', 'dropbear_ssh', '2019.78');
const busybox1310 = component('busybox', 'busybox', 'busybox', '1.31.0');
const busybox1311 = component('busybox', 'busybox', 'busybox', '1.31.1');
const zlib123 = component('zlib', 'zlib', 'zlib', '1.2.3');
const linux5443 = component('linux', 'linux', 'linux_kernel', '5.4.43', 'o');

async function load(...files: string[]): Promise<VulnerabilityMatcher> {
  const source = new MemoryVulnerabilitySource();
  for await (const item of readFeeds(files.map((f) => sharedPath('vulndata', f)))) {
    if (item.kind === 'error') throw new Error(`${item.file}: ${item.message}`);
    source.apply(item);
  }
  return new VulnerabilityMatcher(source);
}

async function ids(matcher: VulnerabilityMatcher, c: Component): Promise<string[]> {
  return (await matcher.matchComponent(c)).map((f) => f.pname).sort();
}

describe.runIf(hasData)('corpus components against the two NVD records of the issue', () => {
  it('Dropbear 0.52 yields CVE-2012-0920 and BusyBox 1.31.x yields CVE-2021-42386; nothing outside the ranges', async () => {
    const m = await load('nvd-cve2.0-CVE-2012-0920.json', 'nvd-cve2.0-CVE-2021-42386.json');
    expect(await ids(m, dropbear052)).toEqual(['CVE-2012-0920']);
    expect(await ids(m, busybox1310)).toEqual(['CVE-2021-42386']);
    expect(await ids(m, busybox1311)).toEqual(['CVE-2021-42386']);
    expect(await ids(m, dropbear201978)).toEqual([]);
    expect(await ids(m, component('dropbear', 'dropbear_ssh_project', 'dropbear_ssh', '2012.55'))).toEqual([]);
    expect(await ids(m, component('dropbear', 'dropbear_ssh_project', 'dropbear_ssh', '0.51'))).toEqual([]);
    expect(await ids(m, component('busybox', 'busybox', 'busybox', '1.33.2'))).toEqual([]);
    expect(await ids(m, component('busybox', 'busybox', 'busybox', '1.15.3'))).toEqual([]);
    const [f] = await m.matchComponent(dropbear052);
    expect(f).toMatchObject({ severity: 'high', cvssLatestBaseScore: 7.1, identifiers: [{ cve: 'CVE-2012-0920' }, { cwe: 'CWE-399' }] });
    expect((f!.match as any).matches[0]).toMatchObject({ criterion: 'cpe:2.3:a:dropbear_ssh_project:dropbear_ssh:*:*:*:*:*:*:*:*', range: { startIncluding: '0.52', endIncluding: '2012.54' } });
  });
});

describe.runIf(hasData)('corpus components against the 44-record NVD corpus', () => {
  it('finds exactly the records whose ranges hold the verified versions', async () => {
    const m = await load('nvd-corpus');
    expect(await ids(m, dropbear052)).toEqual(['CVE-2012-0920', 'CVE-2016-7406', 'CVE-2018-15599', 'CVE-2020-36254']);
    expect(await ids(m, dropbear201978)).toEqual(['CVE-2020-36254']);
    expect(await ids(m, busybox1310)).toEqual(['CVE-2021-42386', 'CVE-2022-28391']);
    expect(await ids(m, busybox1311)).toEqual(['CVE-2021-42386', 'CVE-2022-28391']);
    expect(await ids(m, zlib123)).toEqual(['CVE-2016-9841']);
    expect(await ids(m, linux5443)).toEqual(['CVE-2022-0185']);
  });
});

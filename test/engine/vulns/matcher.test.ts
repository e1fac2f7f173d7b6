import { describe, expect, it } from 'vitest';
import { matchCpe } from '../../../src/engine/vulns/cpe-matcher.js';
import { parseCpe } from '../../../src/engine/cpe.js';
import { VulnerabilityMatcher } from '../../../src/engine/vulns/matcher.js';
import { MemoryVulnerabilitySource } from '../../../src/engine/vulns/memory-source.js';
import { failingSource } from '../../support/vuln-source.js';
import type { CpeCriterion, VulnerabilityRecord } from '../../../src/engine/vulns/source.js';
import type { Component, Problem } from '../../../src/engine/types.js';

function component(name: string, version: string | undefined, cpe?: string, purl?: string): Component {
  return {
    ref: `${name}@${version ?? ''}`, name, type: 'application', confidence: 1,
    paths: [`rootfs/usr/sbin/${name}`], evidence: [{ path: `rootfs/usr/sbin/${name}`, method: 'version-signature', match: `${name} ${version}` }],
    foundBy: ['test'], ...(version ? { version } : {}), ...(cpe ? { cpe } : {}), ...(purl ? { purl } : {}),
  };
}

function record(id: string, criteria: CpeCriterion[][], extra: Partial<VulnerabilityRecord> = {}): VulnerabilityRecord {
  return { id, aliases: [], source: 'nvd', cwes: [], cvss: {}, references: [], criteria, ...extra };
}

const any = (vendor: string, product: string, version = '*', update = '*') => `cpe:2.3:a:${vendor}:${product}:${version}:${update}:*:*:*:*:*:*`;

describe('CPE parsing', () => {
  it('splits on unescaped colons and keeps escapes', () => {
    const cpe = parseCpe('cpe:2.3:a:themeisle:wp_maintenance_mode_\\&_coming_soon:1.0\\:1:*:*:*:*:wordpress:*:*');
    expect(cpe).toMatchObject({ vendor: 'themeisle', product: 'wp_maintenance_mode_\\&_coming_soon', version: '1.0\\:1', targetSw: 'wordpress' });
    expect(parseCpe('cpe:/a:busybox:busybox:1.0')).toBeUndefined();
    expect(parseCpe('cpe:2.3:a:too:short')).toBeUndefined();
  });
});

describe('CPE matcher', () => {
  const busybox = (v: string) => component('busybox', v, any('busybox', 'busybox', v));
  it.each([
    // [component version, criterion, matches?]
    ['1.31.1', { criteria: any('busybox', 'busybox'), vulnerable: true, versionStartIncluding: '1.16.0', versionEndIncluding: '1.33.1' }, true],
    ['1.33.1', { criteria: any('busybox', 'busybox'), vulnerable: true, versionStartIncluding: '1.16.0', versionEndIncluding: '1.33.1' }, true],
    ['1.33.2', { criteria: any('busybox', 'busybox'), vulnerable: true, versionStartIncluding: '1.16.0', versionEndIncluding: '1.33.1' }, false],
    ['1.15.3', { criteria: any('busybox', 'busybox'), vulnerable: true, versionStartIncluding: '1.16.0', versionEndIncluding: '1.33.1' }, false],
    ['1.31.1', { criteria: any('busybox', 'busybox'), vulnerable: true, versionEndExcluding: '1.31.1' }, false],
    ['1.31.1', { criteria: any('busybox', 'busybox'), vulnerable: true, versionStartExcluding: '1.31.1' }, false],
    ['1.31.1', { criteria: any('busybox', 'busybox', '1.31.1'), vulnerable: true }, true],
    ['1.31.1', { criteria: any('busybox', 'busybox', '1.31.0'), vulnerable: true }, false],
    ['1.31.1', { criteria: any('busybox', 'busybox', '1.31.*'), vulnerable: true }, true],
    ['1.31.1', { criteria: any('busybox', 'busybox', '1.31.1', 'rc1'), vulnerable: true }, false],
    ['1.31.1-rc1', { criteria: any('busybox', 'busybox', '1.31.1', 'rc1'), vulnerable: true }, true],
    ['1.31.1', { criteria: any('busybox', 'busybox'), vulnerable: false, versionEndIncluding: '2.0' }, false],
    ['1.31.1', { criteria: any('busybox', 'other'), vulnerable: true }, false],
    ['1.31.1', { criteria: 'cpe:2.3:o:busybox:busybox:*:*:*:*:*:*:*:*', vulnerable: true }, false],
    ['1.31.1', { criteria: any('busybox', 'busybox'), vulnerable: true }, true],
  ] as const)('busybox %s against %j → %s', (version, criterion, expected) => {
    expect(matchCpe(busybox(version), record('CVE-1', [[criterion]])).length > 0).toBe(expected);
  });

  it('records how the match was made, with the platform and the fix', () => {
    const r = record('CVE-2', [[
      { criteria: any('openssl', 'openssl'), vulnerable: true, versionStartIncluding: '1.0.2', versionEndExcluding: '1.0.2l' },
      { criteria: 'cpe:2.3:o:debian:debian_linux:9.0:*:*:*:*:*:*:*', vulnerable: false },
    ]]);
    const [how] = matchCpe(component('openssl', '1.0.2k', any('openssl', 'openssl', '1.0.2k')), r);
    expect(how).toEqual({
      matcher: 'cpe', scheme: 'generic', componentCpe: any('openssl', 'openssl', '1.0.2k'), version: '1.0.2k',
      criterion: any('openssl', 'openssl'), kind: 'range', range: { startIncluding: '1.0.2', endExcluding: '1.0.2l' },
      platform: ['cpe:2.3:o:debian:debian_linux:9.0:*:*:*:*:*:*:*'], platformStatus: 'unknown', fixedIn: '1.0.2l',
    });
  });

  it('evaluates an AND configuration with a hardware CPE: the firmware of another device does not match, an unidentified device is unknown', async () => {
    // NVD's form for router firmware: the firmware (vulnerable) AND the device it runs on (not vulnerable)
    const source = new MemoryVulnerabilitySource();
    source.putRecord(record('CVE-2098-3000', [[
      { criteria: 'cpe:2.3:o:acme:rt_firmware:*:*:*:*:*:*:*:*', vulnerable: true, versionEndExcluding: '2.0' },
      { criteria: 'cpe:2.3:h:acme:rt-100:-:*:*:*:*:*:*:*', vulnerable: false },
    ]]));
    // a platform criterion alone never matches
    source.putRecord(record('CVE-2098-3001', [[{ criteria: 'cpe:2.3:h:acme:rt-200:-:*:*:*:*:*:*:*', vulnerable: false }]]));
    const firmware = component('rt_firmware', '1.5', 'cpe:2.3:o:acme:rt_firmware:1.5:*:*:*:*:*:*:*');
    const device = (model: string) => component(model, undefined, `cpe:2.3:h:acme:${model}:-:*:*:*:*:*:*:*`);
    const pnames = async (inventory: Component[]) => (await new VulnerabilityMatcher(source).matchAll(inventory, []))
      .map((f) => [f.pname, (f.match as any).matches[0].platformStatus, f.matchConfidence?.label]);
    expect(await pnames([firmware, device('rt-100')])).toEqual([['CVE-2098-3000', 'matched', 'exact-cpe']]);
    expect(await pnames([firmware, device('rt-200')])).toEqual([]);
    expect(await pnames([firmware])).toEqual([['CVE-2098-3000', 'unknown', 'platform-unknown']]);
  });

  it('takes the version from the component when its CPE leaves it open, and never guesses without one', () => {
    const r = record('CVE-3', [[{ criteria: any('gnu', 'glibc'), vulnerable: true, versionEndExcluding: '2.30' }]]);
    expect(matchCpe(component('glibc', '2.28', any('gnu', 'glibc')), r)).toHaveLength(1);
    expect(matchCpe(component('glibc', undefined, any('gnu', 'glibc')), r)).toHaveLength(0);
    expect(matchCpe(component('glibc', 'custom-build', any('gnu', 'glibc')), r)).toHaveLength(0);
  });
});

describe('VulnerabilityMatcher', () => {
  it('merges a CVE and its OSV/GHSA aliases into one finding with scores, KEV and EPSS', async () => {
    const source = new MemoryVulnerabilitySource();
    source.putRecord(record('CVE-2021-42386', [[{ criteria: any('busybox', 'busybox'), vulnerable: true, versionStartIncluding: '1.16.0', versionEndIncluding: '1.33.1' }]], {
      cvss: { v2: { baseScore: 6.5, vector: 'AV:N/AC:L/Au:S/C:P/I:P/A:P' }, v3: { baseScore: 7.2, vector: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H', version: '3.1' } },
      cwes: ['CWE-416'], description: 'awk use-after-free', references: [{ url: 'https://a' }],
    }));
    source.putRecord(record('CVE-2021-42386', [[{ criteria: any('busybox', 'busybox'), vulnerable: true, versionEndExcluding: '1.34.0' }]], {
      source: 'osv', sourceId: 'GHSA-xxxx-yyyy-zzzz', aliases: ['GHSA-xxxx-yyyy-zzzz'], references: [{ url: 'https://a' }, { url: 'https://b' }],
    }));
    source.putKev({ cveId: 'CVE-2021-42386', dateAdded: '2024-01-01', dueDate: '2024-01-22', requiredAction: 'Patch.' });
    source.putEpss({ cveId: 'CVE-2021-42386', probability: 0.4, percentile: 0.97 });
    const problems: Problem[] = [];
    const findings = await new VulnerabilityMatcher(source).matchAll([component('busybox', '1.31.1', any('busybox', 'busybox', '1.31.1'))], problems);
    expect(problems).toEqual([]);
    expect(findings).toHaveLength(1);
    const f = findings[0]!;
    expect(f).toMatchObject({
      findingType: 'dependencyVulnerability', pname: 'CVE-2021-42386', severity: 'high', cvssLatestBaseScore: 7.2, isKev: true,
      kev: { dateAdded: '2024-01-01', dueDate: '2024-01-22' },
      epss: { probability: 0.4, percentile: 0.97 }, knownFixedVersion: '1.34.0', description: 'awk use-after-free',
      component: { name: 'busybox', version: '1.31.1' }, occurrences: [{ path: 'rootfs/usr/sbin/busybox', evidence: 'busybox 1.31.1' }],
    });
    expect(f.identifiers).toEqual([{ cve: 'CVE-2021-42386' }, { ghsa: 'GHSA-xxxx-yyyy-zzzz' }, { cwe: 'CWE-416' }]);
    expect(f.cvss).toEqual({ cvssV2: { baseScore: 6.5, vector: 'AV:N/AC:L/Au:S/C:P/I:P/A:P' }, cvssV3: { baseScore: 7.2, vector: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H', version: '3.1' } });
    expect(f.references?.map((r) => r.url)).toEqual(['https://a', 'https://b']);
    expect((f.match as any).matches).toHaveLength(2);
  });

  it('is informational without CVSS, and one finding per fingerprint across same-named components', async () => {
    const source = new MemoryVulnerabilitySource();
    source.putRecord(record('CVE-2000-0001', [[{ criteria: any('zlib', 'zlib'), vulnerable: true, versionEndExcluding: '1.2.12' }]]));
    const a = component('zlib', '1.2.3', any('zlib', 'zlib', '1.2.3'));
    const b = { ...component('zlib', '1.2.8', any('zlib', 'zlib', '1.2.8')), paths: ['rootfs/lib/libz.so.1.2.8'], evidence: [] };
    const findings = await new VulnerabilityMatcher(source).matchAll([a, b], []);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.severity).toBe('informational');
    expect(findings[0]!.occurrences.map((o) => o.path)).toEqual(['rootfs/usr/sbin/zlib', 'rootfs/lib/libz.so.1.2.8']);
  });

  it('merges occurrences into a new list: the other findings of a component keep only its own paths', async () => {
    // a component's findings share one occurrence list (vuln-finding.ts componentFacts); merging must not change it
    const source = new MemoryVulnerabilitySource();
    source.putRecord(record('CVE-2000-0001', [[{ criteria: any('zlib', 'zlib'), vulnerable: true, versionEndExcluding: '1.2.12' }]]));
    source.putRecord(record('CVE-2000-0002', [[{ criteria: any('zlib', 'zlib'), vulnerable: true, versionEndExcluding: '1.2.5' }]]));
    const a = component('zlib', '1.2.3', any('zlib', 'zlib', '1.2.3'));
    const b = { ...component('zlib', '1.2.8', any('zlib', 'zlib', '1.2.8')), paths: ['rootfs/lib/libz.so.1.2.8'], evidence: [] };
    const findings = await new VulnerabilityMatcher(source).matchAll([a, b], []);
    const paths = (id: string) => findings.find((f) => f.pname === id)!.occurrences.map((o) => o.path);
    expect(paths('CVE-2000-0001')).toEqual(['rootfs/usr/sbin/zlib', 'rootfs/lib/libz.so.1.2.8']);
    expect(paths('CVE-2000-0002')).toEqual(['rootfs/usr/sbin/zlib']);
    expect(findings.find((f) => f.pname === 'CVE-2000-0002')!.component).toBe(findings.find((f) => f.pname === 'CVE-2000-0001')!.component);
  });

  it('matches OSV packages by purl with the ecosystem comparator', async () => {
    const source = new MemoryVulnerabilitySource();
    source.putRecord(record('CVE-2021-3782', [], {
      source: 'osv', sourceId: 'UBUNTU-CVE-2021-3782', aliases: ['UBUNTU-CVE-2021-3782'],
      packages: [{ ecosystem: 'Ubuntu:18.04:LTS', name: 'wayland', ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.16.0-1ubuntu1.1~18.04.4' }] }], versions: [] }],
    }));
    const m = new VulnerabilityMatcher(source);
    const older = await m.matchComponent(component('wayland', '1.16.0-1ubuntu1.1~18.04.3', undefined, 'pkg:deb/ubuntu/wayland@1.16.0-1ubuntu1.1~18.04.3?distro=bionic'));
    const fixed = await m.matchComponent(component('wayland', '1.16.0-1ubuntu1.1~18.04.4', undefined, 'pkg:deb/ubuntu/wayland@1.16.0-1ubuntu1.1~18.04.4'));
    expect(older.map((f) => f.pname)).toEqual(['CVE-2021-3782']);
    expect(older[0]!.knownFixedVersion).toBe('1.16.0-1ubuntu1.1~18.04.4');
    expect((older[0]!.match as any).matches[0]).toMatchObject({ matcher: 'osv-package', scheme: 'dpkg', ecosystem: 'Ubuntu:18.04:LTS' });
    expect(fixed).toEqual([]);
  });

  it('a dpkg package with a backported fix is not flagged when the distribution\'s OSV record says it is fixed', async () => {
    const source = new MemoryVulnerabilitySource();
    // upstream: every openssl before 1.1.1t
    source.putRecord(record('CVE-2098-4000', [[{ criteria: any('openssl', 'openssl'), vulnerable: true, versionEndExcluding: '1.1.1t' }]]));
    source.putRecord(record('CVE-2098-4001', [[{ criteria: any('openssl', 'openssl'), vulnerable: true, versionEndExcluding: '1.1.1t' }]]));
    // Debian fixed CVE-2098-4000 in 1.1.1n-0+deb11u4 (a backport); it has no advisory for CVE-2098-4001
    source.putRecord(record('CVE-2098-4000', [], {
      source: 'osv', sourceId: 'DEBIAN-CVE-2098-4000', aliases: ['DEBIAN-CVE-2098-4000'],
      packages: [{ ecosystem: 'Debian:11', name: 'openssl', ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.1.1n-0+deb11u4' }] }], versions: [] }],
    }));
    const deb = (revision: string) => component('openssl', `1.1.1n-0+deb11${revision}`, any('openssl', 'openssl', '1.1.1n'), `pkg:deb/debian/openssl@1.1.1n-0%2Bdeb11${revision}?arch=amd64&distro=debian-11`);
    const pnames = async (c: Component) => (await new VulnerabilityMatcher(source).matchComponent(c)).map((f) => [f.pname, f.matchConfidence?.label]).sort();
    expect(await pnames(deb('u5'))).toEqual([['CVE-2098-4001', 'exact-cpe']]);
    expect(await pnames(deb('u3'))).toEqual([['CVE-2098-4000', 'package-advisory'], ['CVE-2098-4001', 'exact-cpe']]);
    // the same version identified from the binary alone (no package database) is flagged by the upstream range
    expect(await pnames(component('openssl', '1.1.1n', any('openssl', 'openssl', '1.1.1n')))).toEqual([['CVE-2098-4000', 'exact-cpe'], ['CVE-2098-4001', 'exact-cpe']]);
  });

  it('an opkg package: an imported OpenWrt-ecosystem advisory with a backported revision wins over the upstream range, in opkg order', async () => {
    const source = new MemoryVulnerabilitySource();
    source.putRecord(record('CVE-2098-4100', [[{ criteria: any('dropbear_ssh_project', 'dropbear_ssh'), vulnerable: true, versionEndExcluding: '2020.79' }]]));
    // an OSV-format record an organisation wrote from an OpenWrt advisory (OSV has no OpenWrt ecosystem)
    source.putRecord(record('CVE-2098-4100', [], {
      source: 'osv', sourceId: 'OPENWRT-CVE-2098-4100', aliases: ['OPENWRT-CVE-2098-4100'],
      packages: [{ ecosystem: 'OpenWrt', name: 'dropbear', ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2019.78-10' }] }], versions: [] }],
    }));
    const opkg = (revision: string) => component('dropbear', `2019.78-${revision}`, any('dropbear_ssh_project', 'dropbear_ssh', '2019.78'), `pkg:openwrt/dropbear@2019.78-${revision}?arch=mipsel_24kc`);
    const pnames = async (c: Component) => (await new VulnerabilityMatcher(source).matchComponent(c)).map((f) => [f.pname, f.matchConfidence?.label, (f.match as any).matches.map((m: any) => m.scheme ?? m.matcher)]);
    // revision 10 is after 9 and 2 in opkg order (a string order would put '10' before '2')
    expect(await pnames(opkg('10'))).toEqual([]);
    expect(await pnames(opkg('11'))).toEqual([]);
    expect(await pnames(opkg('9'))).toEqual([['CVE-2098-4100', 'package-advisory', expect.arrayContaining(['opkg'])]]);
    // without the OpenWrt advisory the upstream range decides
    const upstreamOnly = new MemoryVulnerabilitySource();
    upstreamOnly.putRecord(record('CVE-2098-4100', [[{ criteria: any('dropbear_ssh_project', 'dropbear_ssh'), vulnerable: true, versionEndExcluding: '2020.79' }]]));
    expect((await new VulnerabilityMatcher(upstreamOnly).matchComponent(opkg('10'))).map((f) => f.pname)).toEqual(['CVE-2098-4100']);
  });

  it('contains a failing lookup as a problem and goes on', async () => {
    const source = failingSource((vendor) => vendor === 'bad', 'db down');
    const problems: Problem[] = [];
    await new VulnerabilityMatcher(source).matchAll([component('x', '1', any('bad', 'x', '1')), component('y', '1', any('good', 'y', '1'))], problems);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/db down/);
  });

  it('replaces a record only with a newer one', () => {
    const source = new MemoryVulnerabilitySource();
    const r = record('CVE-9', [], { modified: '2024-01-01T00:00:00.000Z' });
    expect(source.putRecord(r)).toBe('inserted');
    expect(source.putRecord({ ...r })).toBe('unchanged');
    expect(source.putRecord({ ...r, description: 'older', modified: '2023-01-01T00:00:00.000Z' })).toBe('unchanged');
    expect(source.putRecord({ ...r, description: 'newer', modified: '2025-01-01T00:00:00.000Z' })).toBe('updated');
  });
});

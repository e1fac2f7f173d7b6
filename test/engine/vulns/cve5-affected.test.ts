// CVE JSON 5 records that list no CPE: criteria from vendor, product and versions (affected ranges, and the gaps
// between unaffected ranges when defaultStatus is 'affected'), and the matcher finds components by them.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchCpe } from '../../../src/engine/vulns/cpe-matcher.js';
import { cpeValue as cpeName } from '../../../src/engine/cpe.js';
import { affectedCriteria, vendorProductCpe } from '../../../src/engine/vulns/cve5-affected.js';
import { readFeeds } from '../../../src/engine/vulns/feed-reader.js';
import { VulnerabilityMatcher } from '../../../src/engine/vulns/matcher.js';
import { MemoryVulnerabilitySource } from '../../../src/engine/vulns/memory-source.js';
import type { VulnerabilityRecord } from '../../../src/engine/vulns/source.js';
import type { Component } from '../../../src/engine/types.js';
import { tempDir } from '../../support/temp-dirs.js';

const component = (vendor: string, product: string, version: string, part = 'a'): Component => ({
  ref: `${product}@${version}`, name: product, version, type: 'application', confidence: 1,
  cpe: `cpe:2.3:${part}:${vendor}:${product}:${version}:*:*:*:*:*:*:*`, paths: [`bin/${product}`], evidence: [], foundBy: ['test'],
});
const kernel = (version: string) => component('linux', 'linux_kernel', version, 'o');

/** The CVE 5 record the CNA of a project without CPEs would publish. */
function cve5(id: string, affected: unknown[], extra: Record<string, unknown> = {}) {
  return {
    dataType: 'CVE_RECORD', dataVersion: '5.1',
    cveMetadata: { cveId: id, state: 'PUBLISHED', datePublished: '2024-03-01T00:00:00Z', dateUpdated: '2024-04-01T00:00:00Z', ...extra },
    containers: { cna: { descriptions: [{ lang: 'en', value: `${id} description` }], affected, metrics: [{ cvssV3_1: { version: '3.1', vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', baseScore: 9.8 } }] } },
  };
}

const kernelStyle = {
  vendor: 'Linux', product: 'Linux', defaultStatus: 'affected',
  versions: [
    { version: '4.19', status: 'affected' },
    { version: '0', lessThan: '4.19', status: 'unaffected', versionType: 'semver' },
    { version: '5.10.200', lessThanOrEqual: '5.10.*', status: 'unaffected', versionType: 'semver' },
    { version: '6.1.60', lessThanOrEqual: '6.1.*', status: 'unaffected', versionType: 'semver' },
    { version: '6.6', lessThanOrEqual: '*', status: 'unaffected', versionType: 'original_commit_for_fix' },
  ],
};

describe('CVE 5 affected entries without CPEs', () => {
  it('normalise vendor and product like CPE names, and skip n/a', () => {
    expect(cpeName(' Acme Corp ')).toBe('acme_corp');
    expect(cpeName('node.js')).toBe('node.js');
    expect(cpeName('C++ Lib:2')).toBe('c\\+\\+_lib\\:2');
    expect(vendorProductCpe({ vendor: 'The Tcpdump Group', product: 'tcpdump' })).toBe('cpe:2.3:a:the_tcpdump_group:tcpdump:*:*:*:*:*:*:*:*');
    expect(vendorProductCpe({ vendor: 'n/a', product: 'n/a' })).toBeUndefined();
    expect(vendorProductCpe({ product: 'tcpdump' })).toBeUndefined();
  });

  it.each([
    // [component version, matches?]
    ['4.14.1', false], ['4.19', true], ['5.4.250', true], ['5.10.199', true], ['5.10.200', false], ['5.10.300', false],
    ['5.15.1', true], ['6.1.59', true], ['6.1.60', false], ['6.5.9', true], ['6.6', false], ['6.8.1', false],
  ] as const)('defaultStatus affected: the gaps between unaffected ranges are affected (%s → %s)', (version, expected) => {
    const cpe = vendorProductCpe(kernelStyle)!;
    const record: VulnerabilityRecord = { id: 'CVE-1', aliases: [], cwes: [], cvss: {}, references: [], criteria: [affectedCriteria(cpe, kernelStyle)] };
    expect(matchCpe(component('linux', 'linux', version), record).length > 0).toBe(expected);
  });

  it('git commit ranges claim nothing; defaultStatus affected alone claims every version; unaffected only is no claim', () => {
    const cpe = 'cpe:2.3:a:x:y:*:*:*:*:*:*:*:*';
    expect(affectedCriteria(cpe, { versions: [{ version: '1da177e4c3f4', lessThan: '2f8a2b3c4d5e', status: 'affected', versionType: 'git' }] })).toEqual([]);
    expect(affectedCriteria(cpe, { defaultStatus: 'affected' })).toEqual([{ criteria: cpe, vulnerable: true }]);
    expect(affectedCriteria(cpe, { defaultStatus: 'unaffected', versions: [{ version: '2.0', status: 'unaffected' }] })).toEqual([]);
    // an unaffected point splits the affected line in two
    expect(affectedCriteria(cpe, { defaultStatus: 'affected', versions: [{ version: '2.0', status: 'unaffected' }] })).toEqual([
      { criteria: cpe, vulnerable: true, versionEndExcluding: '2.0' }, { criteria: cpe, vulnerable: true, versionStartExcluding: '2.0' },
    ]);
    // bounds that cannot be ordered: nothing is claimed from the default
    expect(affectedCriteria(cpe, { defaultStatus: 'affected', versions: [{ version: 'abc', lessThan: 'def', status: 'unaffected' }, { version: '1.0', status: 'unaffected' }] })).toEqual([]);
  });

  it('a record without CPEs is imported with criteria and matched by the matcher; CPEs elsewhere in the record win', async () => {
    const dir = tempDir('firmscope-cve5');
    writeFileSync(join(dir, 'CVE-2099-1001.json'), JSON.stringify(cve5('CVE-2099-1001', [
      { vendor: 'BusyBox', product: 'BusyBox', versions: [{ version: '1.16.0', lessThan: '1.34.0', status: 'affected', versionType: 'custom' }] },
    ])));
    writeFileSync(join(dir, 'CVE-2099-1002.json'), JSON.stringify(cve5('CVE-2099-1002', [kernelStyle])));
    writeFileSync(join(dir, 'CVE-2099-1003.json'), JSON.stringify(cve5('CVE-2099-1003', [
      { vendor: 'Acme', product: 'Widget', versions: [{ version: '0', lessThan: '9.0', status: 'affected' }] },
      { vendor: 'Acme', product: 'Widget', cpes: ['cpe:2.3:a:acme:widget_pro:*:*:*:*:*:*:*:*'], versions: [{ version: '0', lessThan: '9.0', status: 'affected' }] },
    ])));
    const memory = new MemoryVulnerabilitySource();
    for await (const item of readFeeds([dir])) {
      expect(item.kind).not.toBe('error');
      memory.apply(item);
    }
    const inventory = [
      component('busybox', 'busybox', '1.31.1'), component('busybox', 'busybox', '1.36.1'), kernel('5.15.1'),
      kernel('6.1.60'), component('linux', 'linux', '5.15.1'), component('acme', 'widget', '1.0'), component('acme', 'widget_pro', '1.0'),
    ];
    const findings = await new VulnerabilityMatcher(memory).matchAll(inventory, []);
    expect(findings.map((f) => `${f.pname} ${f.component?.name} ${f.component?.version}`).sort()).toEqual([
      'CVE-2099-1001 busybox 1.31.1', 'CVE-2099-1002 linux_kernel 5.15.1', 'CVE-2099-1003 widget_pro 1.0',
    ]);
    const busybox = findings.find((f) => f.pname === 'CVE-2099-1001')!;
    expect(busybox).toMatchObject({ severity: 'critical', knownFixedVersion: '1.34.0' });
    // matched by the CNA's names only: a lower confidence than a listed CPE
    expect(busybox.matchConfidence).toEqual({ label: 'name-only', score: 0.5 });
    expect(findings.find((f) => f.pname === 'CVE-2099-1002')!.matchConfidence).toEqual({ label: 'product-alias', score: 0.75 });
    expect(findings.find((f) => f.pname === 'CVE-2099-1003')!.matchConfidence).toEqual({ label: 'exact-cpe', score: 0.9 });
  });

  it('the kernel CNA: Linux/Linux is linux:linux_kernel, cpeApplicability wins over the names, programFiles are imported', async () => {
    const dir = tempDir('firmscope-cve5-kernel');
    // the shape of the kernel CNA's records: git and semver entries for Linux/Linux, the affected files, and
    // cpeApplicability with the same ranges as CPE criteria
    const withCpes = cve5('CVE-2099-2001', [{ ...kernelStyle, programFiles: ['net/sched/sch_qfq.c', 'net/sched/sch_qfq.c'], programRoutines: [{ name: 'qfq_change_class' }] }]);
    (withCpes.containers.cna as Record<string, unknown>).cpeApplicability = [{ nodes: [{ operator: 'OR', negate: false, cpeMatch: [
      { vulnerable: true, criteria: 'cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*', versionStartIncluding: '4.19', versionEndExcluding: '5.10.200' },
    ] }] }];
    writeFileSync(join(dir, 'CVE-2099-2001.json'), JSON.stringify(withCpes));
    writeFileSync(join(dir, 'CVE-2099-2002.json'), JSON.stringify(cve5('CVE-2099-2002', [{ ...kernelStyle, programFiles: ['drivers/usb/core/hub.c'] }])));
    const memory = new MemoryVulnerabilitySource();
    const records: VulnerabilityRecord[] = [];
    for await (const item of readFeeds([dir])) {
      if (item.kind === 'record') records.push(item.record);
      memory.apply(item);
    }
    const byId = new Map(records.map((r) => [r.id, r]));
    expect(byId.get('CVE-2099-2001')).toMatchObject({ programFiles: ['net/sched/sch_qfq.c'], programRoutines: ['qfq_change_class'] });
    // cpeApplicability only: the 5.15 line is not in its range although the names' gaps would say so
    expect(byId.get('CVE-2099-2001')!.criteria).toEqual([[{ criteria: 'cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*', vulnerable: true, versionStartIncluding: '4.19', versionEndExcluding: '5.10.200' }]]);
    expect(byId.get('CVE-2099-2002')!.criteria.flat().every((c) => c.criteria.startsWith('cpe:2.3:o:linux:linux_kernel:') && c.origin === 'alias')).toBe(true);
    const matcher = new VulnerabilityMatcher(memory);
    expect((await matcher.matchComponent(kernel('5.4.250'))).map((f) => f.pname).sort()).toEqual(['CVE-2099-2001', 'CVE-2099-2002']);
    expect((await matcher.matchComponent(kernel('5.15.1'))).map((f) => f.pname)).toEqual(['CVE-2099-2002']);
  });
});

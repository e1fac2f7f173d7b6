import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readFeeds, type FeedItem } from '../../../src/engine/vulns/feed-reader.js';
import { MemoryVulnerabilitySource } from '../../../src/engine/vulns/memory-source.js';
import { recordsOfProduct } from '../../support/vuln-source.js';
import { severityOf } from '../../../src/engine/vulns/cvss.js';
import { haveShared, sharedPath } from '../../support/shared.js';
import { tempDir } from '../../support/temp-dirs.js';

const vulndata = (...p: string[]) => sharedPath('vulndata', ...p);
const hasData = haveShared('vulndata', 'nvd-api2.0-full-page.json');

async function collect(...paths: string[]): Promise<FeedItem[]> {
  const items: FeedItem[] = [];
  for await (const item of readFeeds(paths)) items.push(item);
  return items;
}
const records = (items: FeedItem[]) => items.flatMap((i) => (i.kind === 'record' ? [i.record] : []));
const errors = (items: FeedItem[]) => items.filter((i) => i.kind === 'error');
const tmp = () => tempDir('firmscope-vulns');

describe.runIf(hasData)('NVD API 2.0 importer on real samples', () => {
  it('reads a full response page record by record', async () => {
    const items = await collect(vulndata('nvd-api2.0-full-page.json'));
    const page = JSON.parse(readFileSync(vulndata('nvd-api2.0-full-page.json'), 'utf8'));
    expect(errors(items)).toEqual([]);
    expect(records(items).map((r) => r.id)).toEqual(page.vulnerabilities.map((v: any) => v.cve.id));
    expect(items).toContainEqual({ kind: 'feed', feed: 'nvd', date: page.timestamp });
  });

  it('keeps configurations, CVSS, CWE and references of a single record', async () => {
    const [r] = records(await collect(vulndata('nvd-cve2.0-CVE-2021-42386.json')));
    expect(r!.id).toBe('CVE-2021-42386');
    expect(r!.source).toBe('nvd');
    expect(r!.criteria[0]).toEqual([{
      criteria: 'cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*', vulnerable: true,
      versionStartIncluding: '1.16.0', versionEndIncluding: '1.33.1',
    }]);
    expect(r!.criteria).toHaveLength(2);
    expect(r!.cvss.v3).toEqual({ baseScore: 7.2, vector: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H', version: '3.1' });
    expect(r!.cvss.v2?.baseScore).toBe(6.5);
    expect(r!.cwes).toEqual(['CWE-416']);
    expect(r!.references.length).toBeGreaterThan(3);
    expect(new Set(r!.references.map((x) => x.url)).size).toBe(r!.references.length);
    expect(r!.modified).toMatch(/Z$/);
  });

  it('keeps AND configurations with their platform criteria, and CISA KEV fields', async () => {
    const rs = records(await collect(vulndata('nvd-corpus')));
    expect(rs).toHaveLength(44);
    const withPlatform = rs.flatMap((r) => r.criteria).find((g) => g.some((c) => !c.vulnerable) && g.some((c) => c.vulnerable));
    expect(withPlatform).toBeDefined();
    const kev = rs.filter((r) => r.kev);
    expect(kev.map((r) => r.id).sort()).toEqual(
      rs.filter((r) => JSON.parse(readFileSync(vulndata('nvd-corpus', `${r.id}.json`), 'utf8')).cisaExploitAdd).map((r) => r.id).sort(),
    );
    expect(kev.length).toBeGreaterThan(0);
  });

  it('reports a bad record by file and id and imports the others', async () => {
    const page = JSON.parse(readFileSync(vulndata('nvd-api2.0-full-page.json'), 'utf8'));
    page.vulnerabilities[3].cve.id = 42;
    page.vulnerabilities[5].cve.configurations = 'nonsense';
    const file = join(tmp(), 'page.json');
    writeFileSync(file, JSON.stringify(page));
    const items = await collect(file);
    expect(records(items)).toHaveLength(page.vulnerabilities.length - 1);
    expect(errors(items)).toEqual([{ kind: 'error', file, record: '#3', message: 'cve.id is missing or not a string' }]);
  });

  it('imports what precedes the damage in a truncated page and reports the file', async () => {
    const text = readFileSync(vulndata('nvd-api2.0-full-page.json'), 'utf8');
    const file = join(tmp(), 'truncated.json.gz');
    writeFileSync(file, gzipSync(text.slice(0, Math.floor(text.length / 2))));
    const items = await collect(file);
    const got = records(items).length;
    expect(got).toBeGreaterThan(5);
    expect(got).toBeLessThan(38);
    expect(errors(items)).toHaveLength(1);
    expect(errors(items)[0]).toMatchObject({ file, message: expect.stringMatching(/truncated JSON/) });
  });

  it('reports a file that is no feed at all', async () => {
    const file = join(tmp(), 'other.json');
    writeFileSync(file, '{"hello": "world"}');
    expect(errors(await collect(file))).toMatchObject([{ file, message: expect.stringMatching(/not an NVD/) }]);
  });
});

describe.runIf(hasData)('KEV importer', () => {
  it('reads every entry of the full catalog and its date', async () => {
    const items = await collect(vulndata('cisa-kev-known_exploited_vulnerabilities.json'));
    const catalog = JSON.parse(readFileSync(vulndata('cisa-kev-known_exploited_vulnerabilities.json'), 'utf8'));
    const kev = items.flatMap((i) => (i.kind === 'kev' ? [i.entry] : []));
    expect(errors(items)).toEqual([]);
    expect(kev).toHaveLength(catalog.vulnerabilities.length);
    expect(items).toContainEqual({ kind: 'feed', feed: 'kev', date: catalog.dateReleased });
    const first = catalog.vulnerabilities[0];
    expect(kev[0]).toMatchObject({ cveId: first.cveID, dateAdded: first.dateAdded, dueDate: first.dueDate });
  });

  it('stamps every entry with the date of the catalog it came from', async () => {
    const items = await collect(vulndata('cisa-kev-sample-catalog.json'), vulndata('cisa-kev-known_exploited_vulnerabilities.json'));
    const kev = items.flatMap((i) => (i.kind === 'kev' ? [i.entry] : []));
    const dates = kev.filter((e) => e.cveId === 'CVE-2024-57727').map((e) => [e.catalogDate, e.knownRansomwareCampaignUse]);
    expect(dates).toEqual([['2025-02-19T14:08:44.502Z', 'Unknown'], ['2025-08-25T17:04:19.979Z', 'Known']]);
    expect(kev.every((e) => e.catalogDate)).toBe(true);
  });

  it('the in-memory source keeps the entry of the newer catalog, whatever the order, and does not expose the catalog date', async () => {
    const source = new MemoryVulnerabilitySource();
    source.putRecord({
      id: 'CVE-2024-57727', aliases: [], source: 'nvd', cwes: [], cvss: {}, references: [],
      criteria: [[{ criteria: 'cpe:2.3:a:simple-help:simplehelp:*:*:*:*:*:*:*:*', vulnerable: true }]],
    });
    for (const item of await collect(vulndata('cisa-kev-known_exploited_vulnerabilities.json'), vulndata('cisa-kev-sample-catalog.json'))) source.apply(item);
    const [record] = await recordsOfProduct(source, 'simple-help', 'simplehelp');
    expect(record!.kev).toEqual({ dateAdded: '2025-02-13', dueDate: '2025-03-06', knownRansomwareCampaignUse: 'Known', requiredAction: expect.any(String) });
  });

  it('takes the catalog date from catalogVersion when there is no dateReleased, and none when the date follows the entries', async () => {
    const dir = tmp();
    const entry = { cveID: 'CVE-2024-0001', dateAdded: '2024-01-02' };
    writeFileSync(join(dir, 'a.json'), JSON.stringify({ title: 'CISA Catalog of Known Exploited Vulnerabilities', catalogVersion: '2025.03.04', vulnerabilities: [entry] }));
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ vulnerabilities: [entry], catalogVersion: '2025.03.04' }));
    const kev = (await collect(join(dir, 'a.json'), join(dir, 'b.json'))).flatMap((i) => (i.kind === 'kev' ? [i.entry] : []));
    expect(kev.map((e) => e.catalogDate)).toEqual(['2025-03-04T00:00:00.000Z', undefined]);
  });
});

describe.runIf(hasData)('OSV importer', () => {
  it('files an Ubuntu record under its upstream CVE, keeping its own id as an alias', async () => {
    const [r] = records(await collect(vulndata('osv-UBUNTU-CVE-2021-3782.json')));
    expect(r).toMatchObject({ id: 'CVE-2021-3782', sourceId: 'UBUNTU-CVE-2021-3782', aliases: ['UBUNTU-CVE-2021-3782'], source: 'osv' });
    expect(r!.cvss.v3?.baseScore).toBe(6.6);
    expect(r!.packages![0]).toMatchObject({ ecosystem: 'Ubuntu:Pro:16.04:LTS', name: 'wayland' });
    expect(r!.packages![0]!.ranges[0]!.events).toEqual([{ introduced: '0' }, { fixed: '1.12.0-1~ubuntu16.04.3+esm1' }]);
  });

  it('keeps an advisory about several CVEs under its own id (related ids are not aliases)', async () => {
    const [r] = records(await collect(vulndata('osv-RLSA-2021_3891.json')));
    expect(r!.id).toBe('RLSA-2021:3891');
    expect(r!.aliases).toEqual([]);
    expect(r!.cvss.v3?.baseScore).toBe(6.8); // CVSS:3.1/AV:N/AC:L/PR:L/UI:R/S:C/C:H/I:N/A:N
  });
});

describe('CVE JSON 5 importer', () => {
  it('builds criteria from listed CPEs and versions, and reads CNA and ADP metrics', async () => {
    const file = join(tmp(), 'CVE-2021-42386.json');
    writeFileSync(file, JSON.stringify({
      dataType: 'CVE_RECORD', dataVersion: '5.1',
      cveMetadata: { cveId: 'CVE-2021-42386', state: 'PUBLISHED', datePublished: '2021-11-15T20:15:00Z', dateUpdated: '2024-08-04T03:30:38.000Z' },
      containers: {
        cna: {
          descriptions: [{ lang: 'en', value: 'A use-after-free in awk.' }],
          problemTypes: [{ descriptions: [{ type: 'CWE', cweId: 'CWE-416', lang: 'en', description: 'CWE-416' }] }],
          references: [{ url: 'https://jfrog.com/blog/x', name: 'blog' }],
          affected: [{ vendor: 'busybox', product: 'busybox', versions: [{ version: 'unspecified', lessThan: '1.34.0', status: 'affected', versionType: 'custom' }] }],
        },
        adp: [{
          metrics: [{ cvssV3_1: { version: '3.1', vectorString: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H', baseScore: 7.2 } }],
          affected: [{ vendor: 'busybox', product: 'busybox', cpes: ['cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*'],
            versions: [{ version: '1.16.0', status: 'affected', lessThanOrEqual: '1.33.1', versionType: 'custom' }, { version: '1.36.0', status: 'unaffected' }] }],
        }],
      },
    }));
    const items = await collect(file);
    expect(errors(items)).toEqual([]);
    const [r] = records(items);
    expect(r).toMatchObject({ id: 'CVE-2021-42386', source: 'cve5', cwes: ['CWE-416'], description: 'A use-after-free in awk.', modified: '2024-08-04T03:30:38.000Z' });
    expect(r!.cvss.v3?.baseScore).toBe(7.2);
    expect(r!.criteria).toEqual([[{ criteria: 'cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*', vulnerable: true, versionStartIncluding: '1.16.0', versionEndIncluding: '1.33.1' }]]);
  });

  it('a rejected record affects nothing', async () => {
    const file = join(tmp(), 'rejected.json');
    writeFileSync(file, JSON.stringify({ dataType: 'CVE_RECORD', cveMetadata: { cveId: 'CVE-2020-0001', state: 'REJECTED', dateUpdated: '2021-01-01T00:00:00Z' },
      containers: { cna: { rejectedReasons: [{ lang: 'en', value: 'Duplicate.' }], affected: [{ cpes: ['cpe:2.3:a:x:y:1.0:*:*:*:*:*:*:*'] }] } } }));
    const [r] = records(await collect(file));
    expect(r).toMatchObject({ id: 'CVE-2020-0001', criteria: [], description: 'Duplicate.' });
  });
});

describe('EPSS importer', () => {
  const csv = [
    '#model_version:v2025.03.14,score_date:2025-08-25T12:55:00Z',
    'cve,epss,percentile',
    'CVE-2012-0920,0.01297,0.79044',
    'CVE-2021-42386,0.61234,0.98011',
    'CVE-BAD,0.5,0.5',
    'CVE-2020-0001,1.7,0.2',
    '',
  ].join('\n');

  it.each([['plain', false], ['gzipped', true]])('reads %s CSV, reporting bad rows', async (_, gz) => {
    const file = join(tmp(), gz ? 'epss.csv.gz' : 'epss.csv');
    writeFileSync(file, gz ? gzipSync(csv) : csv);
    const items = await collect(file);
    expect(items.filter((i) => i.kind === 'epss').map((i) => (i as any).entry)).toEqual([
      { cveId: 'CVE-2012-0920', probability: 0.01297, percentile: 0.79044, date: '2025-08-25' },
      { cveId: 'CVE-2021-42386', probability: 0.61234, percentile: 0.98011, date: '2025-08-25' },
    ]);
    expect(items).toContainEqual({ kind: 'feed', feed: 'epss', date: '2025-08-25' });
    expect(errors(items).map((e) => (e as any).record)).toEqual(['line 5', 'line 6']);
  });

  it('reports a CSV without its header', async () => {
    const file = join(tmp(), 'bad.csv');
    writeFileSync(file, 'a,b\n1,2\n');
    expect(errors(await collect(file))).toMatchObject([{ file, message: expect.stringMatching(/header/) }]);
  });
});

describe('feed files', () => {
  it('reports a missing path and goes on with the others', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'epss.csv'), 'cve,epss,percentile\nCVE-2012-0920,0.1,0.5\n');
    writeFileSync(join(dir, 'notes.txt'), 'ignored');
    const items = await collect(join(dir, 'missing.json'), dir);
    expect(errors(items)).toMatchObject([{ file: join(dir, 'missing.json'), message: expect.stringMatching(/cannot read/) }]);
    expect(items.filter((i) => i.kind === 'epss')).toHaveLength(1);
  });
});

describe.runIf(haveShared('vulndata', 'nvd-api2.0-single-entry.json'))('NVD API 2.0 importer on a single-entry response', () => {
  it('reads the one record exactly: id, dates, CVSS v3.1 and v2, CWE, references once each, criteria', async () => {
    const file = vulndata('nvd-api2.0-single-entry.json');
    const items = await collect(file);
    expect(errors(items)).toEqual([]);
    expect(items.filter((i) => i.kind === 'feed')).toEqual([{ kind: 'feed', feed: 'nvd', date: '2023-01-03T21:56:15.797' }]);
    const [r, ...more] = records(items);
    expect(more).toEqual([]);
    expect(r).toStrictEqual({
      id: 'CVE-2022-1576',
      aliases: [],
      source: 'nvd',
      description: 'The WP Maintenance Mode & Coming Soon WordPress plugin before 2.4.5 is lacking CSRF when emptying the subscribed users list, '
        + 'which could allow attackers to make a logged in admin perform such action via a CSRF attack',
      published: '2022-07-11T13:15:08.503Z',
      modified: '2024-11-21T06:41:00.133Z',
      cwes: ['CWE-352'],
      cvss: {
        v3: { baseScore: 6.5, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:H/A:N', version: '3.1' },
        v2: { baseScore: 4.3, vector: 'AV:N/AC:M/Au:N/C:N/I:P/A:N' },
      },
      // the same URL from two sources is one reference
      references: [{ url: 'https://wpscan.com/vulnerability/68deab46-1c16-46ae-a912-a104958ca4cf', description: 'Exploit, Third Party Advisory' }],
      // the CPE keeps NVD's escaping of '&' (a backslash in the parsed string)
      criteria: [[{ criteria: 'cpe:2.3:a:themeisle:wp_maintenance_mode_\\&_coming_soon:*:*:*:*:*:wordpress:*:*', vulnerable: true, versionEndExcluding: '2.4.5' }]],
    });
    expect(severityOf(r!.cvss)).toBe('medium');
  });
});

describe('OSV importer: CVSS vectors without scores', () => {
  it('scores CVSS_V4, CVSS_V3 and CVSS_V2 vectors, so a record with only a v4 vector is rated by it', async () => {
    const file = join(tmp(), 'GHSA-osv.json');
    const v4 = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:L/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N';
    writeFileSync(file, JSON.stringify([
      { id: 'GHSA-0001-aaaa-bbbb', modified: '2024-06-01T00:00:00Z', summary: 'v4 only', severity: [{ type: 'CVSS_V4', score: v4 }], affected: [] },
      {
        id: 'GHSA-0002-aaaa-bbbb', modified: '2024-06-01T00:00:00Z', summary: 'all three', affected: [],
        severity: [{ type: 'CVSS_V2', score: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' }, { type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H' }, { type: 'CVSS_V4', score: v4 }],
      },
      { id: 'GHSA-0003-aaaa-bbbb', modified: '2024-06-01T00:00:00Z', summary: 'bad v4', severity: [{ type: 'CVSS_V4', score: 'CVSS:4.0/AV:N/AC:L' }], affected: [] },
    ]));
    const items = await collect(file);
    expect(errors(items)).toEqual([]);
    const [only4, all, bad] = records(items);
    expect(only4!.cvss).toEqual({ v4: { baseScore: 8.7, vector: v4 } });
    expect(severityOf(only4!.cvss)).toBe('high');
    expect(all!.cvss).toEqual({
      v2: { baseScore: 7.5, vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' },
      v3: { baseScore: 7.2, vector: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H', version: '3.1' },
      v4: { baseScore: 8.7, vector: v4 },
    });
    // an incomplete vector is no score: nothing to rate by
    expect(bad!.cvss).toEqual({});
    expect(severityOf(bad!.cvss)).toBe('informational');
  });
});

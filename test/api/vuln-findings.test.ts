// dependencyVulnerability findings of a real scan over HTTP: the server's vulnerability database gets the real
// NVD record of CVE-2021-42386 (BusyBox awk, up to 1.33.1), a generated KEV catalog and EPSS CSV naming it, and a
// generated NVD record with a fix version and a CNA's CVSS v4; the real BusyBox 1.31.0 binary of the corpus is
// uploaded and scanned by the worker. The finding in full and the grid rows carry severity, CVSS, EPSS, KEV,
// identifiers and the fix version; the image counts its KEV findings.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeeds } from '../../src/engine/vulns/feed-reader.js';
import { VulnerabilityImporter } from '../../src/store/vulns-importer.js';
import { VulnerabilityReader } from '../../src/store/vulns-reader.js';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, startTestServer, uploadAndScan, type TestServer } from '../support/server.js';
import { corpus, haveShared, sharedPath } from '../support/shared.js';

const IMAGE = 'busybox-mipsel'; // 'BusyBox v1.31.0' (strings)
const CVE = 'CVE-2021-42386';
const GENERATED = 'CVE-2099-0001'; // not a real CVE: a generated record shaped like NVD's
const V4 = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N';
const REQUIRED_ACTION = 'Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable.';
const hasData = haveShared('corpus', IMAGE) && haveShared('vulndata', `nvd-cve2.0-${CVE}.json`);

/** The feed files the test generates: a KEV catalog and an EPSS CSV naming CVE-2021-42386, and one NVD record. */
function generatedFeeds(dir: string): string[] {
  const kev = join(dir, 'known_exploited_vulnerabilities.json');
  writeFileSync(kev, JSON.stringify({
    title: 'CISA Catalog of Known Exploited Vulnerabilities', catalogVersion: '2026.03.01', dateReleased: '2026-03-01T12:00:00.000Z', count: 1,
    vulnerabilities: [{
      cveID: CVE, vendorProject: 'BusyBox', product: 'BusyBox', vulnerabilityName: 'BusyBox Use-After-Free Vulnerability', dateAdded: '2026-03-01',
      shortDescription: 'A use-after-free in the awk applet.', requiredAction: REQUIRED_ACTION, dueDate: '2026-03-22', knownRansomwareCampaignUse: 'Unknown', notes: '',
    }],
  }));
  const epss = join(dir, 'epss_scores-2026-03-01.csv');
  writeFileSync(epss, `#model_version:v2025.03.14,score_date:2026-03-01T00:00:00Z\ncve,epss,percentile\n${CVE},0.61234,0.98011\n`);
  const nvd = join(dir, `${GENERATED}.json`);
  writeFileSync(nvd, JSON.stringify({
    id: GENERATED, sourceIdentifier: 'cna@example.org', published: '2026-01-05T10:00:00.000', lastModified: '2026-01-06T10:00:00.000', vulnStatus: 'Analyzed',
    descriptions: [{ lang: 'en', value: 'Generated test record: an out-of-bounds write in BusyBox before 1.32.0.' }],
    metrics: {
      cvssMetricV40: [{ source: 'cna@example.org', type: 'Secondary', cvssData: { version: '4.0', vectorString: V4, baseScore: 9.3, baseSeverity: 'CRITICAL' } }],
      cvssMetricV31: [{ source: 'nvd@nist.gov', type: 'Primary', cvssData: { version: '3.1', vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N', baseScore: 5.3, baseSeverity: 'MEDIUM' } }],
    },
    weaknesses: [{ source: 'nvd@nist.gov', type: 'Primary', description: [{ lang: 'en', value: 'CWE-787' }] }],
    configurations: [{ nodes: [{ operator: 'OR', negate: false, cpeMatch: [{
      vulnerable: true, criteria: 'cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*', versionStartIncluding: '1.30.0', versionEndExcluding: '1.32.0',
    }] }] }],
    references: [{ url: 'https://example.org/advisories/busybox-oob-write', source: 'cna@example.org', tags: ['Vendor Advisory'] }],
  }));
  return [kev, epss, nvd];
}

for (const dialect of testDialects()) {
  describe.runIf(hasData)(`dependencyVulnerability findings of a scanned BusyBox over HTTP [${dialect}]`, () => {
    let t: TestServer;
    let token: string;
    let productId: string;
    let imageId: string;
    let feedDir: string;

    beforeAll(async () => {
      t = await startTestServer({ postgres: dialect === 'postgres' });
      token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
      feedDir = mkdtempSync(join(tmpdir(), 'firmscope-feeds-'));
      const summary = await new VulnerabilityImporter(t.server.runtime.database.db)
        .importItems(readFeeds([sharedPath('vulndata', `nvd-cve2.0-${CVE}.json`), ...generatedFeeds(feedDir)]));
      expect(summary).toMatchObject({ inserted: 2, kev: 1, epss: 1, errors: [] });

      productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'router' })).body.id.split('/')[1];
      imageId = await uploadAndScan(t.base, token, productId, 'busybox', IMAGE, await readFile(corpus(IMAGE)));
    }, 150_000);
    afterAll(async () => {
      await t?.close();
      if (feedDir) rmSync(feedDir, { recursive: true, force: true });
    });

    const gridRows = async () => {
      const r = await call(t.base, token, 'POST', '/api/v4/grids/findings:gridList', {
        filters: [{ field: 'imageId', value: imageId, comparator: 'equals' }, { field: 'findingType', value: ['dependencyVulnerability'], comparator: 'in' }],
        sortBy: { field: 'pname', direction: 'ascend' },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body;
    };
    const full = async (findingId: string) => {
      const r = await call(t.base, token, 'GET', `/api/v4/products/${productId}/findings/${findingId}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body;
    };

    it('lists both BusyBox vulnerabilities in the grid with their scores, EPSS and KEV flag', async () => {
      const grid = await gridRows();
      expect(grid.total).toBe(2);
      expect(grid.rows.map((r: { pname: string }) => r.pname)).toEqual([CVE, GENERATED]);
      expect(grid.rows[0]).toMatchObject({
        findingType: 'dependencyVulnerability', severity: 'high', issueStatus: 'new', identifiers: [{ cve: CVE }, { cwe: 'CWE-416' }],
        cvssLatestBaseScore: 7.2, epssProbability: 0.61234, isKev: true, componentName: 'busybox', componentVersion: '1.31.0', productId, imageId,
      });
      expect(grid.rows[1]).toMatchObject({ severity: 'critical', cvssLatestBaseScore: 9.3, isKev: false, componentVersion: '1.31.0' });
      expect(grid.rows[1].epssProbability).toBeUndefined();
    });

    it('serves the KEV finding in full: severity, CVSS, EPSS, predicates, identifiers, no fix version (NVD gives none)', async () => {
      const [row] = (await gridRows()).rows;
      const f = await full(row.id);
      expect(f).toMatchObject({
        id: row.id, pname: CVE, name: `${CVE} in busybox 1.31.0`, findingType: 'dependencyVulnerability', severity: 'high', issueStatus: 'new',
        identifiers: [{ cve: CVE }, { cwe: 'CWE-416' }],
        cvss: {
          cvssV3: { baseScore: 7.2, vector: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H', version: '3.1' },
          cvssV2: { baseScore: 6.5, vector: 'AV:N/AC:L/Au:S/C:P/I:P/A:P' },
        },
        cvssLatestBaseScore: 7.2,
        epss: { probability: 0.61234, percentile: 0.98011 },
        // the KEV catalogue's dates, from the vulnerability store through the stored finding
        predicates: [{ kev: true, kevDateAdded: '2026-03-01', kevDueDate: '2026-03-22' }],
        component: { name: 'busybox', version: '1.31.0', cpe: 'cpe:2.3:a:busybox:busybox:1.31.0:*:*:*:*:*:*:*', purl: 'pkg:generic/busybox@1.31.0' },
        // the image is named by its uploaded file name, not by the key it is stored under
        occurrences: [{ imageId, scanId: row.scanId, path: IMAGE, evidence: 'BusyBox v1.31.0 (2019-06-10 15:54:51 CEST)' }],
        description: expect.stringMatching(/^A use-after-free in Busybox's awk applet/),
        productId, imageId, history: [],
      });
      expect(Object.keys(f.cvss).sort()).toEqual(['cvssV2', 'cvssV3']);
      // NVD says "up to and including 1.33.1": no fixed version is known, so the action is KEV's
      expect(f.knownFixedVersion).toBeUndefined();
      expect(f.recommendedAction).toBe(REQUIRED_ACTION);
      // why it applies: the NVD criterion and range the version fell in
      expect(f.matches).toEqual([{
        matcher: 'cpe', record: CVE, source: 'nvd', scheme: 'generic', version: '1.31.0', kind: 'range',
        criterion: expect.stringMatching(/^cpe:2\.3:a:busybox:busybox:\*:/), componentCpe: 'cpe:2.3:a:busybox:busybox:1.31.0:*:*:*:*:*:*:*',
        range: expect.objectContaining({ endIncluding: '1.33.1' }),
      }]);
      expect(f.references.map((r: { url: string }) => r.url)).toContain('https://jfrog.com/blog/unboxing-busybox-14-new-vulnerabilities-uncovered-by-claroty-and-jfrog/');
    });

    it('serves the other finding with its fix version, rated by the CNA\'s CVSS v4 over NVD\'s v3.1', async () => {
      const [, row] = (await gridRows()).rows;
      const f = await full(row.id);
      expect(f).toMatchObject({
        pname: GENERATED, severity: 'critical', identifiers: [{ cve: GENERATED }, { cwe: 'CWE-787' }],
        cvss: { cvssV4: { baseScore: 9.3, vector: V4 }, cvssV3: { baseScore: 5.3, version: '3.1' } }, cvssLatestBaseScore: 9.3,
        predicates: [{ kev: false }], knownFixedVersion: '1.32.0', recommendedAction: 'Upgrade busybox to 1.32.0 or later.',
        references: [{ url: 'https://example.org/advisories/busybox-oob-write', description: 'Vendor Advisory' }],
      });
      expect(f.epss).toBeUndefined();
    });

    it('counts the KEV finding and the dependency vulnerabilities on the image', async () => {
      const image = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}`);
      expect(image.status).toBe(200);
      expect(image.body.counts.kev).toBe(1);
      expect(image.body.counts.findingTypeCounts).toContainEqual({ type: 'dependencyVulnerability', count: 2 });
      expect(image.body.counts.dependenciesCount).toBeGreaterThanOrEqual(1);
    });
  });
}

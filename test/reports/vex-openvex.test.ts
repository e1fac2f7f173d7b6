import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inventoryAnalyzer } from '../../src/engine/inventory/inventory.analyzer.js';
import { scan } from '../../src/engine/scan.js';
import { vulnerabilityMatcherAnalyzer } from '../../src/engine/vulns/vulnerability-matcher.analyzer.js';
import { findReport } from '../../src/reports/index.js';
import type { ReportFinding } from '../../src/reports/report.js';
import { OPENVEX_CONTEXT, openVexDocument, openVexReport } from '../../src/reports/vex-openvex.js';
import { corpus, haveShared } from '../support/shared.js';
import { fixedNow } from './sbom-fixture.js';
import { openVexProblems } from './openvex-check.js';
import { openVexSchemaValidator } from './schema-validate.js';
import { haveVulnData, nvdSource, vexInput } from './vex-fixture.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const haveOpenVexSchema = haveShared('schemas', 'openvex', 'openvex_json_schema.json');
/** The structural check always; the official schema when ../shared has it. */
function expectValid(doc: unknown): void {
  expect(openVexProblems(doc)).toEqual([]);
  if (haveOpenVexSchema) expect(openVexSchemaValidator()(doc)).toEqual([]);
}

const mask = (doc: any) => ({ ...doc, '@id': 'MASKED', timestamp: 'MASKED', tooling: 'MASKED' });

describe('OpenVEX 0.2.0 report', () => {
  it('is registered under its id and alias', () => {
    expect(findReport('vex-openvex')).toBe(openVexReport);
    expect(findReport('OpenVEX')).toBe(openVexReport);
    expect(openVexReport.specVersion).toBe('0.2.0');
  });

  describe.runIf(haveVulnData)('from engine findings with issue statuses', () => {
    it('maps every issue status to its VEX status with the fields the spec requires', async () => {
      const { input } = await vexInput();
      const doc = openVexDocument(input) as any;
      expectValid(doc);
      expect(doc['@context']).toBe(OPENVEX_CONTEXT);
      expect(doc.timestamp).toBe(fixedNow.toISOString());
      const byName = new Map(doc.statements.map((s: any) => [s.vulnerability.name, s]));
      expect(doc.statements).toHaveLength(4);
      // new → under_investigation
      expect(byName.get('CVE-2015-1793')).toMatchObject({ status: 'under_investigation' });
      // inProgress → under_investigation (the team's investigation is not a verdict)
      const libc: any = byName.get('CVE-2020-28928');
      expect(libc.status).toBe('under_investigation');
      expect(libc.status_notes).toMatch(/investigating this finding \(issue status: inProgress\)/);
      expect(libc.action_statement).toBeUndefined();
      // remediated → fixed
      expect(byName.get('CVE-2021-42386')).toMatchObject({ status: 'fixed' });
      // rejected → not_affected with an impact statement and no unsupported justification label
      const rejected: any = byName.get('CVE-2022-28391');
      expect(rejected.status).toBe('not_affected');
      expect(rejected.impact_statement).toMatch(/rejected this finding/);
      expect(rejected.justification).toBeUndefined();
      for (const s of doc.statements) expect(s.action_statement === undefined).toBe(s.status !== 'affected');
    });

    it('identifies the image as the product and the matched component as its subcomponent', async () => {
      const { input } = await vexInput();
      const doc = openVexDocument(input) as any;
      const busybox = doc.statements.find((s: any) => s.vulnerability.name === 'CVE-2021-42386');
      const product = busybox.products[0];
      expect(product['@id']).toBe(`pkg:generic/router-x-1.2.bin@1.2?checksum=sha256:${'e'.repeat(64)}`);
      expect(product.identifiers).toEqual({ purl: product['@id'] });
      expect(product.hashes).toEqual({ 'sha-256': 'e'.repeat(64), sha1: 'e'.repeat(40), md5: 'e'.repeat(32) });
      expect(product.subcomponents).toEqual([{
        '@id': 'pkg:openwrt/busybox@1.31.1-1?arch=mipsel_24kc',
        identifiers: { purl: 'pkg:openwrt/busybox@1.31.1-1?arch=mipsel_24kc', cpe23: 'cpe:2.3:a:busybox:busybox:1.31.1:*:*:*:*:*:*:*' },
      }]);
      expect(busybox.vulnerability['@id']).toBe('https://nvd.nist.gov/vuln/detail/CVE-2021-42386');
      expect(busybox.vulnerability.description).toMatch(/use-after-free/i);
      expect(doc.author).toBe('Router X product team, through Firmscope');
    });

    it('states the recorded justification and makes the comment the impact statement (not_affected) or a status note', async () => {
      const { input } = await vexInput();
      const set: Record<string, Partial<ReportFinding>> = {
        'CVE-2022-28391': { issueStatus: 'rejected', justification: 'vulnerable_code_not_in_execute_path', statusComment: 'netstat is not linked into this busybox' },
        'CVE-2021-42386': { issueStatus: 'rejected', justification: 'inline_mitigations_already_exist' },
        'CVE-2020-28928': { issueStatus: 'inProgress', statusComment: 'checking the musl build flags' },
        'CVE-2015-1793': { issueStatus: 'remediated', statusComment: 'openssl upgraded in 1.3' },
      };
      input.findings = input.findings!.map((f) => ({ ...f, justification: undefined, statusComment: undefined, ...set[f.pname] }));
      const doc = openVexDocument(input) as any;
      expectValid(doc);
      const byName = new Map(doc.statements.map((s: any) => [s.vulnerability.name, s]));
      expect(byName.get('CVE-2022-28391')).toMatchObject({
        status: 'not_affected', justification: 'vulnerable_code_not_in_execute_path', impact_statement: 'netstat is not linked into this busybox',
      });
      // A justification alone satisfies the spec: no invented impact statement.
      const mitigated: any = byName.get('CVE-2021-42386');
      expect(mitigated).toMatchObject({ status: 'not_affected', justification: 'inline_mitigations_already_exist' });
      expect(mitigated.impact_statement).toBeUndefined();
      expect((byName.get('CVE-2020-28928') as any).status_notes).toMatch(/Comment: checking the musl build flags$/);
      expect(byName.get('CVE-2015-1793')).toMatchObject({ status: 'fixed' });
      expect((byName.get('CVE-2015-1793') as any).status_notes).toMatch(/Comment: openssl upgraded in 1.3$/);
    });

    it('offline (no service): engine findings are under investigation', async () => {
      const { result } = await vexInput();
      const doc = openVexDocument({ result, now: fixedNow }) as any;
      expectValid(doc);
      expect(doc.statements.map((s: any) => s.status)).toEqual(Array(4).fill('under_investigation'));
      expect(doc.author).toBe('Firmscope');
      expect(doc.statements[0].products[0]['@id']).toBe(`pkg:generic/fw.bin?checksum=sha256:${'e'.repeat(64)}`);
    });

    it('is reproducible and matches the golden file (volatile fields masked)', async () => {
      const { input } = await vexInput();
      const a = await openVexReport.generate(input);
      expect(await openVexReport.generate(input)).toBe(a);
      await expect(JSON.stringify(mask(JSON.parse(String(a))), null, 2) + '\n').toMatchFileSnapshot('golden/vex-openvex.json');
    });
  });

  it('the structure check catches broken statements (the test can fail)', () => {
    const doc = {
      '@context': OPENVEX_CONTEXT, '@id': 'urn:uuid:x', author: 'a', timestamp: fixedNow.toISOString(), version: 1,
      statements: [
        { vulnerability: { name: 'CVE-1' }, products: [{ '@id': 'pkg:generic/x' }], status: 'affected' },
        { vulnerability: { name: 'CVE-2' }, products: [{ '@id': 'pkg:generic/x' }], status: 'not_affected', justification: 'because' },
        { vulnerability: { name: 'CVE-3' }, products: [], status: 'fixed' },
      ],
    };
    expect(openVexProblems(doc)).toEqual([
      'statements[0]: affected needs action_statement',
      'statements[1]: justification must be one of component_not_present, vulnerable_code_not_present, vulnerable_code_not_in_execute_path, vulnerable_code_cannot_be_controlled_by_adversary, inline_mitigations_already_exist',
      'statements[2]: no product',
    ]);
  });

  it.runIf(haveOpenVexSchema)('the official schema catches a not_affected statement without justification or impact statement (the test can fail)', () => {
    const doc = {
      '@context': OPENVEX_CONTEXT, '@id': 'urn:uuid:x', author: 'a', timestamp: fixedNow.toISOString(), version: 1,
      statements: [{ vulnerability: { name: 'CVE-1' }, products: [{ '@id': 'pkg:generic/x' }], status: 'not_affected' }],
    };
    expect(openVexSchemaValidator()(doc).length).toBeGreaterThan(0);
  });

  it.runIf(haveVulnData && haveShared('corpus', 'dropbearStaticMipsel.tar.bz2'))('a real scan of the Dropbear tarball: one statement per vulnerability of dropbear 0.52 and zlib 1.2.3', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'firmscope-vex-'));
    dirs.push(workDir);
    const result = await scan(corpus('dropbearStaticMipsel.tar.bz2'), { workDir, vulnerabilities: await nvdSource(), analyzers: [inventoryAnalyzer, vulnerabilityMatcherAnalyzer] });
    const doc = JSON.parse(String(await openVexReport.generate({ result, now: fixedNow })));
    expectValid(doc);
    const names = doc.statements.map((s: any) => `${s.vulnerability.name} ${s.products[0].subcomponents?.[0]?.identifiers.cpe23 ?? ''}`);
    expect(names).toEqual(expect.arrayContaining([
      'CVE-2012-0920 cpe:2.3:a:dropbear_ssh_project:dropbear_ssh:0.52:*:*:*:*:*:*:*',
      'CVE-2016-7406 cpe:2.3:a:dropbear_ssh_project:dropbear_ssh:0.52:*:*:*:*:*:*:*',
    ]));
    expect(doc.statements).toHaveLength(result.findings.filter((f) => f.findingType === 'dependencyVulnerability').length);
    expect(doc.statements[0].products[0]['@id']).toBe(`pkg:generic/dropbearStaticMipsel.tar.bz2?checksum=sha256:${result.image.hashes.sha256}`);
  }, 120_000);
});

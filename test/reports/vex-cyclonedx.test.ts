import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inventoryAnalyzer } from '../../src/engine/inventory/inventory.analyzer.js';
import { scan } from '../../src/engine/scan.js';
import { vulnerabilityMatcherAnalyzer } from '../../src/engine/vulns/vulnerability-matcher.analyzer.js';
import { findReport } from '../../src/reports/index.js';
import { VEX_JUSTIFICATIONS, type VexJustification } from '../../src/reports/report.js';
import { buildCycloneDxVex, cycloneDxVexReport } from '../../src/reports/vex-cyclonedx.js';
import { corpus, haveShared } from '../support/shared.js';
import { fixedNow } from './sbom-fixture.js';
import { schemaValidator } from './schema-validate.js';
import { haveVulnData, nvdSource, vexInput } from './vex-fixture.js';

const haveSchema = haveShared('schemas', 'cyclonedx', 'bom-1.6.schema.json');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function mask(doc: any): unknown {
  const copy = JSON.parse(JSON.stringify(doc));
  copy.serialNumber = 'urn:uuid:MASKED';
  copy.metadata.timestamp = 'MASKED';
  copy.metadata.tools.components.forEach((t: any) => (t.version = 'MASKED'));
  return copy;
}

async function valid(document: string | Buffer): Promise<void> {
  const json = String(document);
  expect(await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(json)).toBeNull();
  if (haveSchema) expect(schemaValidator('cyclonedx-1.6')(JSON.parse(json))).toEqual([]);
}

describe('CycloneDX 1.6 VEX report', () => {
  it('is registered under its id and alias', () => {
    expect(findReport('vex-cyclonedx')).toBe(cycloneDxVexReport);
    expect(findReport('cyclonedx-vex')).toBe(cycloneDxVexReport);
    expect(cycloneDxVexReport.specVersion).toBe('1.6');
  });

  describe.runIf(haveVulnData)('from engine findings with issue statuses', () => {
    it('carries analysis state, ratings, CWEs, source, references and affects for every vulnerability', async () => {
      const { input } = await vexInput();
      const doc = buildCycloneDxVex(input) as any;
      expect(doc.specVersion).toBe('1.6');
      const byId = new Map(doc.vulnerabilities.map((v: any) => [v.id, v]));
      expect(doc.vulnerabilities).toHaveLength(4);
      expect((byId.get('CVE-2015-1793') as any).analysis.state).toBe('in_triage');
      // inProgress is the team's investigation: in_triage, not exploitable
      expect((byId.get('CVE-2020-28928') as any).analysis).toEqual({ state: 'in_triage', detail: 'The product team is investigating this finding.' });
      expect((byId.get('CVE-2021-42386') as any).analysis.state).toBe('resolved');
      const rejected: any = byId.get('CVE-2022-28391');
      expect(rejected.analysis.state).toBe('not_affected');
      expect(rejected.analysis.detail).toMatch(/rejected this finding/);
      expect(rejected.analysis.justification).toBeUndefined();

      const busybox: any = byId.get('CVE-2021-42386');
      expect(busybox.source).toEqual({ name: 'NVD', url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-42386' });
      expect(busybox.cwes).toEqual([416]);
      expect(busybox.ratings).toEqual(expect.arrayContaining([
        expect.objectContaining({ method: 'CVSSv31', score: 7.2, severity: 'high', vector: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H' }),
        expect.objectContaining({ method: 'CVSSv2', score: 6.5, severity: 'medium' }),
      ]));
      expect(busybox.affects).toEqual([{ ref: 'busybox@1.31.1-1' }]);
      expect(busybox.advisories.length).toBeGreaterThan(0);
      expect(busybox.properties).toEqual(expect.arrayContaining([{ name: 'firmscope:issueStatus', value: 'remediated' }, { name: 'firmscope:findingId', value: 'f03' }]));
    });

    it('resolves every affects ref to a component in the document and names the image like the SBOM does', async () => {
      const { input } = await vexInput();
      const doc = buildCycloneDxVex(input) as any;
      const refs = new Set(doc.components.map((c: any) => c['bom-ref']));
      for (const v of doc.vulnerabilities) for (const a of v.affects) expect(refs.has(a.ref)).toBe(true);
      expect(doc.components.map((c: any) => c['bom-ref']).sort()).toEqual(['busybox@1.31.1-1', 'libc@1.1.24-2', 'openssl@1.0.2c']);
      expect(doc.components.find((c: any) => c.name === 'openssl')).toMatchObject({ type: 'library', version: '1.0.2c', cpe: 'cpe:2.3:a:openssl:openssl:1.0.2c:*:*:*:*:*:*:*' });
      expect(doc.metadata.component).toMatchObject({
        'bom-ref': 'firmscope:image', type: 'firmware', name: 'router-x-1.2.bin', version: '1.2',
        purl: `pkg:generic/router-x-1.2.bin@1.2?checksum=sha256:${'e'.repeat(64)}`,
      });
    });

    it('keeps the fix as the recommendation of a finding in progress', async () => {
      const { input } = await vexInput();
      input.findings = input.findings!.map((f) => ({ ...f, issueStatus: 'inProgress' as const, knownFixedVersion: '9.9' }));
      const doc = buildCycloneDxVex(input) as any;
      const v = doc.vulnerabilities.find((x: any) => x.id === 'CVE-2021-42386');
      expect(v.analysis).toEqual({ state: 'in_triage', detail: 'The product team is investigating this finding.' });
      expect(v.recommendation).toBe('Upgrade busybox to 9.9 or later.');
    });

    it('maps every OpenVEX justification to a CycloneDX one, keeps the label as a property and the comment as the detail; still valid', async () => {
      const { input } = await vexInput();
      const expected: Record<VexJustification, string> = {
        component_not_present: 'code_not_present',
        vulnerable_code_not_present: 'code_not_present',
        vulnerable_code_not_in_execute_path: 'code_not_reachable',
        vulnerable_code_cannot_be_controlled_by_adversary: 'requires_environment',
        inline_mitigations_already_exist: 'protected_by_mitigating_control',
      };
      for (const justification of VEX_JUSTIFICATIONS) {
        input.findings = input.findings!.map((f) => ({ ...f, issueStatus: 'rejected' as const, justification, statusComment: `why ${f.pname}` }));
        for (const v of (buildCycloneDxVex(input) as any).vulnerabilities) {
          expect(v.analysis).toEqual({ state: 'not_affected', justification: expected[justification], detail: `why ${v.id}` });
          expect(v.properties).toContainEqual({ name: 'firmscope:vexJustification', value: justification });
        }
      }
      // Every CycloneDX label used is in the official enumeration: one document using them all validates.
      const labels = Object.keys(expected) as VexJustification[];
      const mixed = input.findings!.map((f, i) => ({ ...f, justification: labels[i % labels.length] }));
      mixed.push({ ...mixed[0]!, id: 'f99', justification: labels[4] });
      await valid(await cycloneDxVexReport.generate({ ...input, findings: mixed }));
      // A justification without a comment: no invented detail; a comment on another status becomes the detail.
      input.findings = input.findings!.map((f, i) => (i === 0
        ? { ...f, issueStatus: 'rejected' as const, justification: 'component_not_present' as const, statusComment: undefined }
        : { ...f, issueStatus: 'inProgress' as const, justification: undefined, statusComment: 'checking the build flags' }));
      const doc = buildCycloneDxVex(input) as any;
      const [first, ...rest] = input.findings!;
      expect(doc.vulnerabilities.find((v: any) => v.id === first!.pname).analysis).toEqual({ state: 'not_affected', justification: 'code_not_present' });
      for (const f of rest) expect(doc.vulnerabilities.find((v: any) => v.id === f.pname).analysis).toEqual({ state: 'in_triage', detail: 'checking the build flags' });
    });

    it('validates with the library validator and the official bom-1.6 schema, with and without a subject', async () => {
      const { input, result } = await vexInput();
      await valid(await cycloneDxVexReport.generate(input));
      await valid(await cycloneDxVexReport.generate({ result, now: fixedNow }));
      await valid(await cycloneDxVexReport.generate({ result: { ...result, findings: [] }, now: fixedNow }));
    });

    it('is reproducible and matches the golden file (volatile fields masked)', async () => {
      const { input } = await vexInput();
      const a = String(await cycloneDxVexReport.generate(input));
      expect(String(await cycloneDxVexReport.generate(input))).toBe(a);
      await expect(JSON.stringify(mask(JSON.parse(a)), null, 2) + '\n').toMatchFileSnapshot('golden/vex-cyclonedx.json');
    });

    it.runIf(haveSchema)('the schema check catches a broken analysis state (the test can fail)', async () => {
      const { input } = await vexInput();
      const doc = buildCycloneDxVex(input) as any;
      doc.vulnerabilities[0].analysis.state = 'rejected';
      expect(schemaValidator('cyclonedx-1.6')(doc).length).toBeGreaterThan(0);
    });
  });

  it.runIf(haveVulnData && haveSchema && haveShared('corpus', 'dropbearStaticMipsel.tar.bz2'))('a real scan of the Dropbear tarball gives a valid VEX for dropbear 0.52', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'firmscope-cdxvex-'));
    dirs.push(workDir);
    const result = await scan(corpus('dropbearStaticMipsel.tar.bz2'), { workDir, vulnerabilities: await nvdSource(), analyzers: [inventoryAnalyzer, vulnerabilityMatcherAnalyzer] });
    const json = String(await cycloneDxVexReport.generate({ result, now: fixedNow }));
    await valid(json);
    const doc = JSON.parse(json);
    const dropbear = result.components.find((c) => c.name === 'dropbear')!;
    const cve = doc.vulnerabilities.find((v: any) => v.id === 'CVE-2012-0920');
    expect(cve.affects).toEqual([{ ref: dropbear.ref }]);
    expect(cve.analysis.state).toBe('in_triage');
    expect(doc.vulnerabilities).toHaveLength(result.findings.filter((f) => f.findingType === 'dependencyVulnerability').length);
  }, 120_000);
});

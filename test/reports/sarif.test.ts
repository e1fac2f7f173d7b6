import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scan } from '../../src/engine/scan.js';
import type { ScanResult } from '../../src/engine/types.js';
import { findReport } from '../../src/reports/index.js';
import type { ReportInput } from '../../src/reports/report.js';
import { pathUri, sarifLog, sarifReport } from '../../src/reports/sarif.js';
import { corpus, haveShared } from '../support/shared.js';
import { sarifValidator } from './sarif-schema.js';
import { fixedNow } from './sbom-fixture.js';
import { haveVulnData, vexInput } from './vex-fixture.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const ready = haveVulnData && haveShared('corpus', 'ssl.key');

/** The VEX fixture's dependency vulnerabilities plus the crypto findings of a real scan of ssl.key (RSA-1024, PEM). */
async function mixedInput(): Promise<ReportInput> {
  const workDir = mkdtempSync(join(tmpdir(), 'firmscope-sarif-'));
  dirs.push(workDir);
  const key: ScanResult = await scan(corpus('ssl.key'), { workDir });
  const { input } = await vexInput();
  const crypto = key.findings.map((f) => ({ ...f, occurrences: f.occurrences.map((o) => ({ ...o, path: `fw.bin_extract/squashfs/etc/${o.path}` })) }));
  return {
    ...input,
    result: { ...input.result, findings: [...input.result.findings, ...crypto] },
    findings: [...input.findings!, ...crypto.map((f, i) => ({ ...f, id: `k${i + 1}`, issueStatus: 'new' as const }))],
  };
}

const mask = (log: any) => {
  const copy = JSON.parse(JSON.stringify(log));
  copy.runs[0].tool.driver.version = 'MASKED';
  copy.runs[0].tool.driver.semanticVersion = 'MASKED';
  copy.runs[0].properties.generatedAt = 'MASKED';
  return copy;
};

describe('SARIF 2.1.0 report', () => {
  it('is registered under its id', () => {
    expect(findReport('sarif')).toBe(sarifReport);
    expect(findReport('SARIF')).toBe(sarifReport);
    expect(sarifReport.mediaType).toBe('application/sarif+json');
  });

  it('encodes image paths as relative URIs', () => {
    expect(pathUri('fw.bin_extract/squashfs/usr/sbin/dropbear')).toBe('fw.bin_extract/squashfs/usr/sbin/dropbear');
    expect(pathUri('fw bin:1/a#b/c%d')).toBe('fw%20bin%3A1/a%23b/c%25d');
  });

  describe.runIf(ready)('from engine findings (vulnerabilities and crypto rules)', () => {
    it('has one rule per vulnerability or rule id and one result per occurrence, with levels and locations', async () => {
      const input = await mixedInput();
      const log = sarifLog(input) as any;
      const run = log.runs[0];
      const ids = run.tool.driver.rules.map((r: any) => r.id);
      expect(ids).toEqual(['CVE-2015-1793', 'CVE-2020-28928', 'CVE-2021-42386', 'CVE-2022-28391', 'private-key-in-image', 'weak-key-size']);
      const occurrences = input.findings!.reduce((n, f) => n + Math.max(1, f.occurrences.length), 0);
      expect(run.results).toHaveLength(occurrences);
      for (const r of run.results) expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);

      const busybox = run.results.filter((r: any) => r.ruleId === 'CVE-2021-42386');
      expect(busybox.map((r: any) => r.locations[0].physicalLocation.artifactLocation.uri).sort()).toEqual(['fw.bin_extract/squashfs/bin/busybox', 'fw.bin_extract/squashfs/usr/lib/opkg/status']);
      expect(busybox[0]).toMatchObject({ level: 'error', properties: { issueStatus: 'remediated', component: { name: 'busybox', version: '1.31.1-1' } } });
      expect(busybox[0].message.text).toMatch(/^CVE-2021-42386 affects busybox 1\.31\.1-1: A use-after-free/);
      const rule = run.tool.driver.rules[busybox[0].ruleIndex];
      expect(rule).toMatchObject({ helpUri: 'https://nvd.nist.gov/vuln/detail/CVE-2021-42386', defaultConfiguration: { level: 'error' } });
      expect(rule.properties).toMatchObject({ 'security-severity': '7.2', tags: ['security', 'dependencyVulnerability', 'external/cwe/cwe-416'] });

      const key = run.results.find((r: any) => r.ruleId === 'private-key-in-image');
      expect(key.level).toBe('error');
      expect(key.locations[0]).toEqual({
        physicalLocation: { artifactLocation: { uri: 'fw.bin_extract/squashfs/etc/ssl.key', uriBaseId: 'EXTRACTED' }, region: { byteOffset: 0 } },
        message: { text: 'PEM PKCS#8' },
      });
      expect(run.results.find((r: any) => r.ruleId === 'weak-key-size').level).toBe('warning');
      expect(run.tool.driver.rules.find((r: any) => r.id === 'weak-key-size').properties['security-severity']).toBe('5.5');
    });

    it('suppresses rejected findings and keeps fingerprints for tracking', async () => {
      const log = sarifLog(await mixedInput()) as any;
      const results = log.runs[0].results;
      const suppressed = results.filter((r: any) => r.suppressions);
      expect(suppressed.length).toBeGreaterThan(0);
      for (const r of suppressed) {
        expect(r.properties.issueStatus).toBe('rejected');
        expect(r.suppressions).toEqual([{ kind: 'external', status: 'accepted', justification: expect.stringMatching(/rejected this finding/) }]);
      }
      expect(results.filter((r: any) => r.properties.issueStatus === 'rejected')).toHaveLength(suppressed.length);
      for (const r of results) expect(r.partialFingerprints['firmscopeFinding/v1']).toMatch(/^[0-9a-f]{32}$/);
    });

    it('a rejection states the justification and comment the team recorded', async () => {
      const input = await mixedInput();
      const rejected = input.findings!.find((f) => f.issueStatus === 'rejected')!;
      const explained = { ...input, findings: input.findings!.map((f) => (f === rejected ? { ...f, justification: 'vulnerable_code_not_present' as const, statusComment: 'the applet is not built' } : f)) };
      const results = (sarifLog(explained) as any).runs[0].results.filter((r: any) => r.properties.findingId === rejected.id);
      expect(results.length).toBeGreaterThan(0);
      for (const r of results) expect(r.suppressions[0].justification).toBe('Not affected: vulnerable code not present. the applet is not built');
    });

    it('validates against the SARIF 2.1.0 schema, and the check can fail', async () => {
      const validate = sarifValidator();
      const input = await mixedInput();
      const log = JSON.parse(String(await sarifReport.generate(input)));
      expect(validate(log)).toEqual([]);
      expect(validate(JSON.parse(String(await sarifReport.generate({ result: input.result, now: fixedNow }))))).toEqual([]);
      expect(validate(sarifLog({ result: { ...input.result, findings: [] }, now: fixedNow }))).toEqual([]);
      log.runs[0].results[0].level = 'fatal';
      expect(validate(log).length).toBeGreaterThan(0);
    });

    it('is reproducible and matches the golden file (volatile fields masked)', async () => {
      const input = await mixedInput();
      const a = String(await sarifReport.generate(input));
      expect(String(await sarifReport.generate(input))).toBe(a);
      await expect(JSON.stringify(mask(JSON.parse(a)), null, 2) + '\n').toMatchFileSnapshot('golden/sarif.json');
    });
  });
});

// The findings digest behind the executive summary: the risk rating and its reason, what to fix first, the top
// risks with the upgrade that removes the most findings, and the changes since a previous image.
import { describe, expect, it } from 'vitest';
import type { ScanResult } from '../../src/engine/types.js';
import { componentLabel, cvssPlain, findingsDigest, plainWords, upgradeText } from '../../src/reports/findings-digest.js';
import { evidenceText, versionLabel } from '../../src/reports/report-labels.js';
import { findingsModel } from '../../src/reports/findings-model.js';
import type { ReportFinding } from '../../src/reports/report.js';

const result: ScanResult = {
  engineVersion: '0.1.0', image: { fileName: 'fw.bin', size: 1, hashes: { sha256: 'a', sha1: 'b', md5: 'c' }, type: 'squashfs' },
  files: [], unknownChunks: [], components: [], cryptoAssets: [], problems: [], findings: [], stats: { durationMs: 1, filesExtracted: 0, bytesExtracted: 0, formats: {} },
};
const busybox = { ref: 'busybox@1.14.1', name: 'busybox', version: '1.14.1' };
const finding = (id: string, extra: Partial<ReportFinding>): ReportFinding => ({
  id, issueStatus: 'new', fingerprint: id, findingType: 'dependencyVulnerability', pname: id, name: id, severity: 'high', identifiers: [], occurrences: [], ...extra,
});

describe('findings digest', () => {
  const findings = [
    finding('CVE-A', { component: busybox, knownFixedVersion: '1.29.0', severity: 'medium' }),
    finding('CVE-B', { component: busybox, knownFixedVersion: '1.30.1', description: 'Heap overflow in udhcpc. More words.' }),
    finding('CVE-C', { component: busybox, severity: 'critical' }),
    finding('CVE-D', { component: { ref: 'dnsmasq@2.45', name: 'dnsmasq', version: '2.45' }, knownFixedVersion: '2.83', isKev: true, severity: 'medium' }),
    finding('CVE-E', { issueStatus: 'remediated', severity: 'critical' }),
    finding('CVE-F', { epss: { probability: 0.4, percentile: 0.99 }, severity: 'low' }),
  ];
  const digest = findingsDigest(findingsModel({ result, findings }), {
    image: { id: 'B', name: 'fw', version: '0.9', createTime: '2026-01-01T00:00:00Z' },
    findings: [{ fingerprint: 'CVE-A', pname: 'CVE-A', name: 'a', severity: 'medium', findingType: 'dependencyVulnerability' }, { fingerprint: 'OLD', pname: 'OLD', name: 'o', severity: 'low', findingType: 'dependencyVulnerability' }],
  });

  it('rates the image by its worst open finding, a known exploited one first', () => {
    expect(digest.rating.level).toBe('Critical');
    expect(digest.rating.reason).toBe('1 open finding is known to be exploited by attackers (CISA KEV), led by CVE-D in dnsmasq 2.45.');
    expect(digest.open).toBe(5);
  });

  it('puts known exploited and likely exploited findings first, and ranks the top risks by urgency', () => {
    expect(digest.fixFirst.map((f) => f.id)).toEqual(['CVE-D', 'CVE-F']);
    expect(digest.topRisks.map((r) => r.finding.id)).toEqual(['CVE-D', 'CVE-C', 'CVE-B', 'CVE-A', 'CVE-F']);
    expect(digest.topRisks.find((r) => r.finding.id === 'CVE-B')!.plain).toBe('busybox 1.14.1: Heap overflow in udhcpc.');
  });

  it('says what to do first: one action per upgrade or recommendation, for the urgent open findings, with why', () => {
    expect(digest.actions.map((a) => [a.action, a.why, a.findings.map((f) => f.id)])).toEqual([
      ['Upgrade dnsmasq 2.45 to 2.83 or later.', 'Known exploited (CISA KEV)', ['CVE-D']],
      ['No fixed version is recorded for CVE-C in busybox 1.14.1: find the busybox release or patch that fixes it, or remove busybox if it is not needed.', 'Critical severity', ['CVE-C']],
      // the upgrade for the high finding also removes the medium one it fixes
      ['Upgrade busybox 1.14.1 to 1.30.1 or later.', 'High severity', ['CVE-B', 'CVE-A']],
      ['Investigate and remove the cause.', '40% chance of exploitation within 30 days (EPSS)', ['CVE-F']],
    ]);
    const dated = findingsDigest(findingsModel({ result, findings: findings.map((f) => (f.isKev ? { ...f, kev: { dateAdded: '2023-05-12' } } : f)) }));
    expect(dated.actions[0]!.why).toBe('Known exploited since 12 May 2023 (CISA KEV)');
  });

  it('names the upgrade that removes the most findings, and says when it does not fix the finding at hand', () => {
    expect(digest.upgrades[0]).toEqual({ component: 'busybox', version: '1.14.1', to: '1.30.1', removes: 2, worst: 'high' });
    const byId = (id: string) => digest.topRisks.find((r) => r.finding.id === id)!;
    expect(upgradeText(byId('CVE-B'))).toBe('busybox 1.14.1 → 1.30.1: removes 2 findings');
    expect(upgradeText(byId('CVE-C'))).toBe('No fix known for this one; busybox 1.14.1 → 1.30.1 removes 2 other findings');
    expect(upgradeText(byId('CVE-F'))).toBe('-');
  });

  it('counts the triage states and the changes since the previous image', () => {
    expect(digest.triage).toEqual({ new: 5, inProgress: 0, remediated: 1, rejected: 0 });
    expect(digest.changes!.added.map((f) => f.id).sort()).toEqual(['CVE-B', 'CVE-C', 'CVE-D', 'CVE-E', 'CVE-F']);
    expect(digest.changes!.resolved.map((f) => f.pname)).toEqual(['OLD']);
    expect(digest.changes!.unchanged).toBe(1);
  });
});

describe('plain words for a reader', () => {
  it('says what an attacker could do from a CVSS vector', () => {
    expect(cvssPlain({ cvss: { cvssV3: { baseScore: 9.8, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' } } }))
      .toBe('An attacker on the network, without logging in, could read its data, change its data or code and make it stop working.');
    expect(cvssPlain({ cvss: { cvssV3: { baseScore: 5.5, vector: 'CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:N/I:N/A:H' } } })).toBe('A user or program already on the device could make it stop working.');
    expect(cvssPlain({ cvss: { cvssV4: { baseScore: 6, vector: 'CVSS:4.0/AV:P/AC:L/AT:N/PR:N/UI:N/VC:L/VI:N/VA:N/SC:N/SI:N/SA:N' } } }))
      .toBe('Someone with the device in hand, without special rights, could read some of its data.');
    expect(cvssPlain({ cvss: { cvssV2: { baseScore: 5, vector: 'AV:N/AC:L/Au:N/C:N/I:P/A:N' } } })).toBe('An attacker on the network, without logging in, could change some of its data.');
    expect(cvssPlain({})).toBeUndefined();
  });

  it('never repeats a one-sentence or over-long description in a top risk', () => {
    const cvss = { cvssV3: { baseScore: 9.8, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' } };
    const one = finding('CVE-1', { description: 'A flaw in the parser.', cvss, component: busybox });
    expect(plainWords(one)).toBe('busybox 1.14.1: An attacker on the network, without logging in, could read its data, change its data or code and make it stop working.');
    const long = finding('CVE-2', { description: `${'word '.repeat(60)}end. Second sentence.`, cvss });
    expect(plainWords(long)).not.toContain('word');
    expect(plainWords(finding('CVE-3', { description: 'Heap overflow in udhcpc. More words.' }))).toBe('Heap overflow in udhcpc.');
  });

  it('cuts a build hash in a version and quotes the strings found next to each other', () => {
    expect(componentLabel({ name: 'kernel', version: '5.4.43-1-8b3aaa48ce5dfb66263bde9605e79a76' })).toBe('kernel 5.4.43-1-8b3aaa48…');
    expect(versionLabel('2019-12-31-0e34af14-3')).toBe('2019-12-31-0e34af14-3');
    expect(evidenceText('\\0 2.81 \\0 Dnsmasq version %s')).toBe('strings “2.81” next to “Dnsmasq version %s”');
    expect(evidenceText('BusyBox v1.31.1 ()')).toBe('BusyBox v1.31.1 ()');
  });
});

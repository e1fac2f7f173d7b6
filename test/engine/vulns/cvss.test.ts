// CVSS: scores from vectors (through ae-cvss-calculator: v4 by the FIRST MacroVector lookup, v3.x and v2 by the
// spec formulas; every base vector reaches us with the calculator class of its version, and known vectors score
// as the FIRST calculators give them), which version a record's severity comes from,
// how the NVD importer picks among NVD's Primary and a CNA's Secondary metrics, and the severity bands.
import cvssCalculator from 'ae-cvss-calculator';
import { describe, expect, it } from 'vitest';
import type { Component } from '../../../src/engine/types.js';
import { cvss2BaseScore, cvss3BaseScore, cvss4BaseScore, latestBaseScore, severityOf } from '../../../src/engine/vulns/cvss.js';
import { nvdCveToRecord } from '../../../src/engine/vulns/nvd-api2.importer.js';
import { osvToRecord } from '../../../src/engine/vulns/osv.importer.js';
import type { VulnerabilityRecord } from '../../../src/engine/vulns/source.js';
import { buildFinding } from '../../../src/engine/vulns/vuln-finding.js';

const V4_CRITICAL = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N';
const V31_MEDIUM = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N';

describe('CVSS v4.0 scores', () => {
  // Scores of the FIRST calculator (the test corpus of the Go and JS ports, which found a typo in it before 4.0 was published)
  it.each([
    [V4_CRITICAL, 9.3],
    ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H', 10],
    ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N', 0],
    ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:H/SI:H/SA:H', 7.9],
    ['CVSS:4.0/AV:P/AC:H/AT:P/PR:H/UI:A/VC:L/VI:N/VA:N/SC:N/SI:N/SA:N', 1],
    ['CVSS:4.0/AV:L/AC:L/AT:N/PR:L/UI:P/VC:N/VI:H/VA:H/SC:N/SI:L/SA:L', 5.2],
    // with threat and environmental metrics: the score of the vector as written (CVSS-BT, CVSS-BE, CVSS-BTE)
    ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H/E:U', 9.1],
    ['CVSS:4.0/AV:N/AC:H/AT:N/PR:H/UI:N/VC:N/VI:N/VA:H/SC:H/SI:H/SA:H/CR:L/IR:L/AR:L', 5.8],
    ['CVSS:4.0/AV:L/AC:L/AT:N/PR:L/UI:P/VC:N/VI:H/VA:H/SC:N/SI:L/SA:L/E:P/CR:H/IR:M/AR:H/MAV:A/MAT:P/MPR:N/MVI:H/MVA:N/MSI:H/MSA:N/S:N/V:C/U:Amber', 4.7],
  ])('%s = %d', (vector, score) => expect(cvss4BaseScore(vector)).toBe(score));

  it.each([
    ['a missing base metric', 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N'],
    ['an unknown value', 'CVSS:4.0/AV:Q/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N'],
    ['an unknown metric', `${V4_CRITICAL}/FOO:1`],
    ['another version', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'],
    ['no vector', 'nonsense'],
  ])('is undefined for %s', (_, vector) => expect(cvss4BaseScore(vector)).toBeUndefined());
});

describe('CVSS v3.x and v2 formulas (each version by its own calculator class)', () => {
  const product = (...sets: string[][]): string[][] =>
    sets.reduce<string[][]>((acc, set) => acc.flatMap((prefix) => set.map((v) => [...prefix, v])), [[]]);

  it('agree with an independent implementation on all 2,592 base vectors of v3.1 and of v3.0', () => {
    const vectors = product(['N', 'A', 'L', 'P'], ['L', 'H'], ['N', 'L', 'H'], ['N', 'R'], ['U', 'C'], ['H', 'L', 'N'], ['H', 'L', 'N'], ['H', 'L', 'N'])
      .map(([av, ac, pr, ui, s, c, i, a]) => `AV:${av}/AC:${ac}/PR:${pr}/UI:${ui}/S:${s}/C:${c}/I:${i}/A:${a}`);
    expect(vectors).toHaveLength(2592);
    const differ = vectors.flatMap((v) => [
      [`CVSS:3.1/${v}`, cvss3BaseScore(`CVSS:3.1/${v}`), new cvssCalculator.Cvss3P1(`CVSS:3.1/${v}`).calculateScores().base],
      [`CVSS:3.0/${v}`, cvss3BaseScore(`CVSS:3.0/${v}`), new cvssCalculator.Cvss3P0(`CVSS:3.0/${v}`).calculateScores().base],
    ]).filter(([, ours, theirs]) => ours !== theirs);
    expect(differ).toEqual([]);
  });

  it('agree with an independent implementation on all 729 v2 base vectors', () => {
    const vectors = product(['L', 'A', 'N'], ['H', 'M', 'L'], ['M', 'S', 'N'], ['N', 'P', 'C'], ['N', 'P', 'C'], ['N', 'P', 'C'])
      .map(([av, ac, au, c, i, a]) => `AV:${av}/AC:${ac}/Au:${au}/C:${c}/I:${i}/A:${a}`);
    const differ = vectors.map((v) => [v, cvss2BaseScore(v), new cvssCalculator.Cvss2(v).calculateScores().base]).filter(([, ours, theirs]) => ours !== theirs);
    expect(differ).toEqual([]);
  });
});

const v2 = (baseScore: number) => ({ baseScore, vector: '' });
const v3 = (baseScore: number) => ({ baseScore, vector: '', version: '3.1' });
const v4 = (baseScore: number) => ({ baseScore, vector: '' });

describe('latest CVSS version', () => {
  it('takes v4 over v3.x over v2, whatever the scores', () => {
    expect(latestBaseScore({ v2: v2(10), v3: v3(5.3), v4: v4(2.1) })).toEqual({ version: 4, score: 2.1 });
    expect(latestBaseScore({ v2: v2(10), v3: v3(5.3) })).toEqual({ version: 3, score: 5.3 });
    expect(latestBaseScore({ v2: v2(4.3) })).toEqual({ version: 2, score: 4.3 });
    expect(latestBaseScore({})).toBeUndefined();
    expect(severityOf({ v2: v2(10), v3: v3(5.3), v4: v4(2.1) })).toBe('low');
    expect(severityOf({ v2: v2(9.3), v3: v3(5) })).toBe('medium');
  });
});

/** An NVD API 2.0 `cve` object with the given metrics. */
const nvdCve = (metrics: object) => ({ id: 'CVE-2024-0001', lastModified: '2024-06-01T00:00:00.000', metrics, configurations: [] });
const metric = (type: 'Primary' | 'Secondary', source: string, version: string, vectorString: string, baseScore: number) =>
  ({ source, type, cvssData: { version, vectorString, baseScore } });

describe('NVD metrics: Primary and Secondary', () => {
  // The rule (nvd-api2.importer.ts and cvss.ts): within one CVSS version NVD's Primary entry wins over a CNA's
  // Secondary one, then the first entry; across versions the newest version wins, whoever scored it.
  it('prefers NVD\'s Primary entry within a version, wherever it stands in the list', () => {
    const r = nvdCveToRecord(nvdCve({
      cvssMetricV31: [metric('Secondary', 'cna@example.com', '3.1', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8), metric('Primary', 'nvd@nist.gov', '3.1', V31_MEDIUM, 5.3)],
    }));
    expect(r.cvss).toEqual({ v3: { baseScore: 5.3, vector: V31_MEDIUM, version: '3.1' } });
    expect(severityOf(r.cvss)).toBe('medium');
  });

  it('takes a CNA\'s Secondary entry when NVD has not scored that version, and v3.1 over v3.0', () => {
    const r = nvdCveToRecord(nvdCve({
      cvssMetricV30: [metric('Primary', 'nvd@nist.gov', '3.0', 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8)],
      cvssMetricV31: [metric('Secondary', 'cna@example.com', '3.1', V31_MEDIUM, 5.3)],
    }));
    expect(r.cvss.v3).toEqual({ baseScore: 5.3, vector: V31_MEDIUM, version: '3.1' });
  });

  it('rates by a CNA\'s Secondary v4 9.3 over NVD\'s Primary v3.1 5.3: critical, the newest version decides', () => {
    const r = nvdCveToRecord(nvdCve({
      cvssMetricV40: [metric('Secondary', 'cna@example.com', '4.0', V4_CRITICAL, 9.3)],
      cvssMetricV31: [metric('Primary', 'nvd@nist.gov', '3.1', V31_MEDIUM, 5.3)],
    }));
    expect(r.cvss).toEqual({ v4: { baseScore: 9.3, vector: V4_CRITICAL }, v3: { baseScore: 5.3, vector: V31_MEDIUM, version: '3.1' } });
    expect(latestBaseScore(r.cvss)).toEqual({ version: 4, score: 9.3 });
    expect(severityOf(r.cvss)).toBe('critical');
  });
});

describe('severity bands', () => {
  it.each([
    [0, 'informational'], [0.1, 'low'], [3.9, 'low'], [4, 'medium'], [6.9, 'medium'], [7, 'high'], [8.9, 'high'], [9, 'critical'], [10, 'critical'],
  ] as const)('v3.x and v4 %d → %s', (score, severity) => {
    expect(severityOf({ v3: v3(score) })).toBe(severity);
    expect(severityOf({ v4: v4(score) })).toBe(severity);
  });

  it.each([[0, 'informational'], [0.1, 'low'], [3.9, 'low'], [4, 'medium'], [6.9, 'medium'], [7, 'high'], [10, 'high']] as const)(
    'v2 %d → %s (v2 has no critical band)', (score, severity) => expect(severityOf({ v2: v2(score) })).toBe(severity),
  );

  it('is informational without any CVSS', () => expect(severityOf({})).toBe('informational'));
});

describe('findings from OSV records scored by vector', () => {
  const component: Component = {
    ref: 'openssl@3.0.1', name: 'openssl', version: '3.0.1', type: 'library', confidence: 1,
    purl: 'pkg:deb/debian/openssl@3.0.1', paths: ['usr/lib/libssl.so.3'], evidence: [], foundBy: ['test'],
  };
  const osv = (severity: object[]): VulnerabilityRecord => osvToRecord({
    id: 'GHSA-aaaa-bbbb-cccc', modified: '2024-06-01T00:00:00Z', summary: 'A flaw.', severity,
    affected: [{ package: { ecosystem: 'Debian', name: 'openssl' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '3.0.2' }] }] }],
  });

  it('an OSV-only record with only a v4 vector is rated by its v4 score, not informational', () => {
    const f = buildFinding(component, [{ record: osv([{ type: 'CVSS_V4', score: V4_CRITICAL }]), details: [] }]);
    expect(f).toMatchObject({ severity: 'critical', cvssLatestBaseScore: 9.3, cvss: { cvssV4: { baseScore: 9.3, vector: V4_CRITICAL } } });
  });

  it('an OSV-only record without a usable vector is informational', () => {
    for (const severity of [[], [{ type: 'CVSS_V4', score: 'CVSS:4.0/AV:N' }]]) {
      const f = buildFinding(component, [{ record: osv(severity), details: [] }]);
      expect(f.severity).toBe('informational');
      expect(f.cvssLatestBaseScore).toBeUndefined();
    }
  });
});

describe('CVSS v3.x and v2 scores of known vectors', () => {
  it.each([
    ['CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H', 7.2],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 10],
    ['CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:L/I:L/A:H', 6.6],
    ['CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:H/A:N', 6.5],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', 0],
  ])('v3 %s = %d', (vector, score) => expect(cvss3BaseScore(vector)).toBe(score));

  it.each([
    ['AV:N/AC:H/Au:S/C:C/I:C/A:C', 7.1],
    ['AV:N/AC:M/Au:N/C:N/I:P/A:N', 4.3],
    ['AV:N/AC:L/Au:N/C:P/I:P/A:P', 7.5],
  ])('v2 %s = %d', (vector, score) => expect(cvss2BaseScore(vector)).toBe(score));

  it('is undefined for an incomplete v3 vector', () => expect(cvss3BaseScore('CVSS:3.1/AV:N')).toBeUndefined());
});

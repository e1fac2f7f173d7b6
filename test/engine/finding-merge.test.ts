// The scan's last step: findings sharing a fingerprint become one, keeping the strongest severity with its
// scores and everything either finding knew.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Analyzer } from '../../src/engine/analyzer.js';
import { mergeFindingsByFingerprint } from '../../src/engine/finding-merge.js';
import { scan } from '../../src/engine/scan.js';
import type { EngineFinding } from '../../src/engine/types.js';
import { box, boxHandler } from './unpack/driver-helpers.js';

const finding = (fingerprint: string, fields: Partial<EngineFinding> = {}): EngineFinding => ({
  fingerprint, findingType: 'knownVulnerability', pname: 'rule', name: `finding ${fingerprint}`, severity: 'low', identifiers: [], occurrences: [], ...fields,
});

describe('mergeFindingsByFingerprint', () => {
  it('keeps findings with distinct fingerprints as they are, in order', () => {
    const list = [finding('a'), finding('b'), finding('c')];
    expect(mergeFindingsByFingerprint(list)).toEqual(list);
  });

  it('merges one fingerprint into one finding: highest severity with its scores, occurrences without repeats, identifiers and references unioned', () => {
    const low = finding('x', {
      name: 'weaker', severity: 'low', cvssLatestBaseScore: 3.1, cvss: { cvssV3: { baseScore: 3.1, vector: 'CVSS:3.1/AV:L/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N' } },
      identifiers: [{ cve: 'CVE-2020-1' }, { cwe: 'CWE-327', rule: 'r' }],
      references: [{ url: 'https://a.example' }],
      occurrences: [{ path: 'lib/libcrypto.so', offset: 16, evidence: 'constant-table: DES SPtrans' }, { path: 'lib/libssl.so' }],
    });
    const high = finding('x', {
      name: 'stronger', severity: 'high', cvssLatestBaseScore: 7.5, cvss: { cvssV3: { baseScore: 7.5, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' } },
      identifiers: [{ rule: 'r', cwe: 'CWE-327' }, { cwe: 'CWE-326' }],
      references: [{ url: 'https://a.example' }, { url: 'https://b.example' }],
      occurrences: [{ path: 'lib/libcrypto.so', offset: 16, evidence: 'constant-table: DES SPtrans' }, { path: 'lib/libcrypto.so', offset: 32, evidence: 'library-symbol: DES_set_key' }],
      isKev: true,
    });
    const merged = mergeFindingsByFingerprint([finding('first'), low, high]);
    expect(merged.map((f) => f.fingerprint)).toEqual(['first', 'x']);
    expect(merged[1]).toMatchObject({ name: 'stronger', severity: 'high', cvssLatestBaseScore: 7.5, cvss: high.cvss, isKev: true });
    expect(merged[1]!.occurrences).toEqual([
      { path: 'lib/libcrypto.so', offset: 16, evidence: 'constant-table: DES SPtrans' },
      { path: 'lib/libcrypto.so', offset: 32, evidence: 'library-symbol: DES_set_key' },
      { path: 'lib/libssl.so' },
    ]);
    // { cwe, rule } and { rule, cwe } are one identifier.
    expect(merged[1]!.identifiers).toEqual([{ rule: 'r', cwe: 'CWE-327' }, { cwe: 'CWE-326' }, { cve: 'CVE-2020-1' }]);
    expect(merged[1]!.references).toEqual([{ url: 'https://a.example' }, { url: 'https://b.example' }]);
    // Order of arrival does not change the outcome.
    expect(mergeFindingsByFingerprint([high, low])[0]).toMatchObject({ severity: 'high', cvssLatestBaseScore: 7.5, name: 'stronger' });
  });

  it('never pairs a severity with another finding\'s score', () => {
    const scored = finding('x', { severity: 'medium', cvssLatestBaseScore: 5.3 });
    const unscoredHigh = finding('x', { severity: 'high' });
    expect(mergeFindingsByFingerprint([scored, unscoredHigh])[0]).toEqual(expect.objectContaining({ severity: 'high' }));
    expect(mergeFindingsByFingerprint([scored, unscoredHigh])[0]!.cvssLatestBaseScore).toBeUndefined();
    // Same severity: the one with the higher score leads.
    expect(mergeFindingsByFingerprint([finding('y', { severity: 'medium' }), finding('y', { severity: 'medium', cvssLatestBaseScore: 6.1 })])[0]!.cvssLatestBaseScore).toBe(6.1);
  });

  it('is the last step of scan(): two analyzers reporting one fingerprint give one finding', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fs-merge-'));
    try {
      await writeFile(join(dir, 'fw.bin'), box('x'));
      const reporter = (id: string, severity: EngineFinding['severity'], path: string): Analyzer => ({
        id, phase: id, run: async (ctx) => { ctx.findings.push(finding('same', { severity, occurrences: [{ path }] })); },
      });
      const result = await scan(join(dir, 'fw.bin'), { workDir: join(dir, 'work'), handlers: [boxHandler()], analyzers: [reporter('a', 'low', 'lib/a.so'), reporter('b', 'high', 'lib/b.so')] });
      expect(result.findings).toEqual([expect.objectContaining({ fingerprint: 'same', severity: 'high', occurrences: [{ path: 'lib/b.so' }, { path: 'lib/a.so' }] })]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

import { describe, expect, it } from 'vitest';
import { failingFindings, gateSummary, type GateRow } from '../../src/cli/remote/gate.js';

const row = (pname: string, severity: string, extra: Partial<GateRow> = {}): GateRow =>
  ({ id: pname, pname, name: pname, severity, isKev: false, issueStatus: 'new', ...extra });
const rows = [row('CVE-1', 'critical'), row('CVE-2', 'high'), row('CVE-3', 'medium', { isKev: true }), row('CVE-4', 'low'), row('CVE-5', 'critical', { issueStatus: 'rejected' })];

describe('CI gates', () => {
  it('--fail-on counts open findings at or above the severity; rejected ones never fail', () => {
    expect(failingFindings(rows, { failOn: 'high' }).map((r) => r.pname)).toEqual(['CVE-1', 'CVE-2']);
    expect(failingFindings(rows, { failOn: 'low' })).toHaveLength(4);
    expect(failingFindings([rows[3]!], { failOn: 'medium' })).toEqual([]);
  });

  it('--fail-on-kev adds KEV findings of any severity; --fail-on-new alone fails on any (new) row', () => {
    expect(failingFindings(rows, { failOn: 'high', failOnKev: true }).map((r) => r.pname)).toEqual(['CVE-1', 'CVE-2', 'CVE-3']);
    expect(failingFindings(rows, { failOnKev: true }).map((r) => r.pname)).toEqual(['CVE-3']);
    expect(failingFindings(rows, { failOnNew: true })).toHaveLength(4);
    expect(failingFindings([], { failOnNew: true, failOn: 'low' })).toEqual([]);
  });

  it('summarises what failed', () => {
    const text = gateSummary(failingFindings(rows, { failOn: 'high', failOnKev: true }), { failOn: 'high', failOnKev: true });
    expect(text).toMatch(/^firmscope: gate failed \(--fail-on high --fail-on-kev\): 3 findings \(1 critical, 1 high, 1 medium, 1 in KEV\)/);
    expect(text).toContain('  medium   CVE-3 [KEV]');
  });
});

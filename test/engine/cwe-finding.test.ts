import { describe, expect, it } from 'vitest';
import { cweFinding } from '../../src/engine/cwe-finding.js';
import { findingFingerprint } from '../../src/engine/fingerprint.js';

describe('cweFinding', () => {
  const fields = { name: 'n', description: 'd', severity: 'low' as const, cwe: 'CWE-1', recommendedAction: 'r', occurrences: [{ path: 'a/b', offset: 4 }] };

  it('is a knownVulnerability fingerprinted by rule and place, titled by its name unless told', () => {
    const f = cweFinding('some-rule', '/bin/x', fields);
    expect(f).toEqual({
      fingerprint: findingFingerprint('knownVulnerability', 'some-rule', '/bin/x'),
      findingType: 'knownVulnerability',
      pname: 'some-rule',
      name: 'n',
      title: 'n',
      description: 'd',
      severity: 'low',
      identifiers: [{ cwe: 'CWE-1', rule: 'some-rule' }],
      recommendedAction: 'r',
      occurrences: [{ path: 'a/b', offset: 4 }],
    });
    expect(cweFinding('some-rule', '/bin/y', fields).fingerprint).not.toBe(f.fingerprint);
  });

  it('keeps an explicit title and references', () => {
    const f = cweFinding('r', 'w', { ...fields, title: 't', references: [{ url: 'https://cwe.mitre.org/' }] });
    expect(f.title).toBe('t');
    expect(f.references).toEqual([{ url: 'https://cwe.mitre.org/' }]);
  });
});

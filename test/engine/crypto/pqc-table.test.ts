// The one PQC table: no rule contradicts itself, every algorithm of the catalog (with each of its parameters)
// is decided by exactly the rule that first matches it, and no rule is unreachable. The assessments then agree
// with the catalog (NIST category, approval) and with the facts of NIST IR 8547 and SP 800-131A.
import { describe, expect, it } from 'vitest';
import { ALGORITHMS, classicalStrength, nistQuantumLevel } from '../../../src/engine/crypto/algorithms.js';
import { assess } from '../../../src/engine/crypto/pqc.js';
import { PQC_RULES, pqcRule, transitionText, type PqcRule } from '../../../src/engine/crypto/pqc-table.js';

/** Every (algorithm, parameter) the catalog knows, the unparameterised use included. */
const uses = [...ALGORITHMS.values()].flatMap((info) => [undefined, ...Object.keys(info.strength).filter((p) => p !== '')].map((parameter) => ({ info, parameter })));

/** What is wrong with a rule, as sentences (empty when it agrees with itself). */
function contradictions(rule: PqcRule): string[] {
  const out: string[] = [];
  const statuses = rule.transitions.map((t) => t.status);
  const last = statuses[statuses.length - 1];
  const reason = rule.reason.toLowerCase();
  if (!rule.sources.length) out.push('cites no source');
  if (rule.migrate === (last === 'ACCEPTABLE')) out.push(`migrate=${rule.migrate} but the final status is ${last ?? 'none'}`);
  if (statuses.includes('ACCEPTABLE') && statuses.length > 1) out.push('ACCEPTABLE mixed with other statuses');
  if (rule.quantumClass === 'quantum-resistant' && statuses.some((s) => s === 'DEPRECATED' || s === 'DISALLOWED')) out.push('quantum-resistant yet deprecated or disallowed');
  if (rule.quantumClass === 'quantum-vulnerable' && statuses.length && !rule.transitions.some((t) => t.status === 'DISALLOWED' && (t.year ?? 0) <= 2035)) out.push('quantum-vulnerable yet not disallowed by 2035');
  if (rule.quantumClass === 'quantum-vulnerable' && !rule.migrate) out.push('quantum-vulnerable yet nothing to migrate');
  if (rule.quantumClass === 'broken' && !statuses.includes('DISALLOWED')) out.push('broken yet not disallowed');
  if (!statuses.length && rule.match.nistApproved !== false) out.push('no NIST status, yet not limited to algorithms NIST does not approve');
  if (rule.match.nistApproved === false && rule.quantumClass !== 'broken' && statuses.length) out.push('a NIST status for an algorithm NIST IR 8547 does not cover');
  rule.transitions.forEach((t, i) => {
    const before = rule.transitions.slice(0, i);
    if (t.status === 'LEGACY_USE' && !before.some((b) => (b.status === 'DEPRECATED' || b.status === 'DISALLOWED') && b.year === t.year)) out.push('LEGACY_USE without a deprecation or disallowance that year');
    if (before.some((b) => (b.year ?? 0) > (t.year ?? 0))) out.push('years out of order');
    if (t.status === 'DEPRECATED' && before.some((b) => b.status === 'DISALLOWED')) out.push('deprecated after being disallowed');
  });
  // The reason says nothing the statuses do not.
  if (/\bacceptable\b/.test(reason) && rule.migrate) out.push('says acceptable but asks to migrate');
  if (/disallow/.test(reason) && !statuses.includes('DISALLOWED')) out.push('says disallowed without a DISALLOWED status');
  if (/deprecat/.test(reason) && !statuses.includes('DEPRECATED')) out.push('says deprecated without a DEPRECATED status');
  if (/legacy use/.test(reason) && !statuses.includes('LEGACY_USE')) out.push('says legacy use without a LEGACY_USE status');
  for (const year of reason.match(/after (\d{4})/g) ?? []) if (!rule.transitions.some((t) => `after ${t.year}` === year)) out.push(`says "${year}" without that transition`);
  for (const name of rule.match.names ?? []) if (!ALGORITHMS.has(name)) out.push(`names ${name}, which the catalog does not know`);
  return out;
}

describe('the PQC table', () => {
  it.each(PQC_RULES.map((rule) => [rule.id, rule] as const))('rule %s agrees with itself', (_, rule) => {
    expect(contradictions(rule)).toEqual([]);
  });

  it('finds its own contradictions (the checks can fail)', () => {
    // The two contradictions of the issue: ChaCha20 resistant yet disallowed, SHA-256 acceptable yet told to migrate.
    const chacha: PqcRule = { id: 'x', match: { nistApproved: true }, quantumClass: 'quantum-resistant', transitions: [{ status: 'DISALLOWED' }], migrate: false, reason: 'resistant', sources: [] };
    expect(contradictions(chacha)).toEqual(['cites no source', 'migrate=false but the final status is DISALLOWED', 'quantum-resistant yet deprecated or disallowed']);
    const sha256: PqcRule = { id: 'y', match: { nistApproved: true }, quantumClass: 'weakened', transitions: [{ status: 'ACCEPTABLE', year: 2035 }], migrate: true, reason: 'acceptable under NIST IR 8547', sources: ['IR 8547'] };
    expect(contradictions(sha256)).toEqual(['migrate=true but the final status is ACCEPTABLE', 'says acceptable but asks to migrate']);
  });

  it('decides every algorithm and parameter of the catalog, and every rule decides some', () => {
    const used = new Set<string>();
    for (const { info, parameter } of uses) {
      const rule = pqcRule({ info, strength: classicalStrength(info, parameter), category: nistQuantumLevel(info, parameter) });
      expect(rule, `${info.name} ${parameter ?? ''}`).toBeDefined();
      used.add(rule!.id);
    }
    expect(PQC_RULES.map((r) => r.id).filter((id) => !used.has(id))).toEqual([]);
  });

  it.each(uses.map(({ info, parameter }) => [info.name, parameter ?? '(any)', info, parameter] as const))('%s %s: the assessment agrees with the catalog', (_, __, info, parameter) => {
    const a = assess(info.name, parameter)!;
    if (a.quantumClass === 'quantum-vulnerable' || a.quantumClass === 'broken') expect(a.nistQuantumSecurityLevel).toBe(0);
    if (a.quantumClass === 'quantum-resistant') expect(a.nistQuantumSecurityLevel).toBeGreaterThanOrEqual(1);
    if (a.quantumClass === 'weakened') expect(a.nistQuantumSecurityLevel).toBeLessThanOrEqual(2);
    if (info.shor) expect(['quantum-vulnerable', 'broken']).toContain(a.quantumClass);
    if (a.compliant) expect(a.nistApproved).toBe(true);
    expect(a.recommendations.length === 0).toBe(a.compliant);
    // A symmetric category claims no more than the classical strength gives (category 3 ~ AES-192, 5 ~ AES-256).
    if (!info.shor && a.rule !== 'post-quantum' && a.nistQuantumSecurityLevel >= 3) expect(a.classicalSecurityLevel).toBeGreaterThanOrEqual(a.nistQuantumSecurityLevel >= 5 ? 256 : 192);
  });
});

describe('the facts of NIST IR 8547 and SP 800-131A', () => {
  it('public-key algorithms: 112-bit deprecated after 2030, all disallowed after 2035, under 112 bits disallowed since 2013', () => {
    for (const [name, parameter] of [['RSA', '2048'], ['DH', '2048'], ['ECDSA', 'P-224'], ['ECC', 'P-224']]) expect(transitionText(assess(name!, parameter)!.transitions)).toBe('DEPRECATED after 2030; DISALLOWED after 2035');
    for (const [name, parameter] of [['RSA', '3072'], ['ECDSA', 'P-256'], ['ECDH', 'P-384'], ['Ed25519', undefined], ['X25519', undefined]]) expect(transitionText(assess(name!, parameter)!.transitions)).toBe('DISALLOWED after 2035');
    expect(transitionText(assess('DH', '1024')!.transitions)).toBe('DISALLOWED after 2013');
    expect(assess('DSA', '2048')!.transitions).toEqual([{ status: 'DISALLOWED', year: 2023 }, { status: 'LEGACY_USE', year: 2023 }]);
  });

  it('symmetric primitives stay acceptable with nothing to migrate; 112-bit hashes go after 2030', () => {
    for (const [name, parameter] of [['AES', '128'], ['AES', '256'], ['SHA-256', undefined], ['SHA-3', '256'], ['SHA-512', undefined], ['HMAC', undefined]]) {
      expect(assess(name!, parameter), `${name} ${parameter}`).toMatchObject({ compliant: true, transitions: [{ status: 'ACCEPTABLE', year: 2035 }], recommendations: [] });
    }
    expect(assess('AES', '128')!.quantumClass).toBe('weakened');
    expect(assess('AES', '256')!.quantumClass).toBe('quantum-resistant');
    expect(assess('SHA-224')!.transitions).toEqual([{ status: 'DISALLOWED', year: 2030 }]);
    expect(assess('SHA-3', '224')!.transitions).toEqual([{ status: 'DISALLOWED', year: 2030 }]);
  });

  it('an algorithm NIST does not approve is outside NIST IR 8547: no status, not compliant, a NIST-approved replacement', () => {
    const chacha = assess('ChaCha20')!;
    expect(chacha).toMatchObject({ quantumClass: 'quantum-resistant', transitions: [], compliant: false, recommendations: [{ parameter: 'AES-256-GCM' }] });
    expect(chacha.reason).toContain('not NIST-approved');
    expect(chacha.reason).not.toMatch(/disallow/i);
    expect(assess('secp256k1')).toMatchObject({ quantumClass: 'quantum-vulnerable', transitions: [], compliant: false });
    expect(assess('Blowfish')).toMatchObject({ quantumClass: 'broken', transitions: [{ status: 'DISALLOWED' }] });
  });
});

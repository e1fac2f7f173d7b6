// PQC classification against NIST IR 8547 and the NIST PQC security categories.
import { describe, expect, it } from 'vitest';
import { assess, readinessScore } from '../../../src/engine/crypto/pqc.js';

describe('assess', () => {
  it.each([
    // algorithm, parameter, class, classical bits, NIST level, compliant, transitions
    ['RSA', '2048', 'quantum-vulnerable', 112, 0, false, [{ status: 'DEPRECATED', year: 2030 }, { status: 'DISALLOWED', year: 2035 }]],
    ['RSA', '3072', 'quantum-vulnerable', 128, 0, false, [{ status: 'DISALLOWED', year: 2035 }]],
    ['RSA', '1024', 'quantum-vulnerable', 80, 0, false, [{ status: 'DISALLOWED', year: 2013 }]],
    ['RSA', '512', 'broken', 50, 0, false, [{ status: 'DISALLOWED', year: 2013 }]],
    ['ECDSA', 'P-256', 'quantum-vulnerable', 128, 0, false, [{ status: 'DISALLOWED', year: 2035 }]],
    ['ECC', 'P-224', 'quantum-vulnerable', 112, 0, false, [{ status: 'DEPRECATED', year: 2030 }, { status: 'DISALLOWED', year: 2035 }]],
    ['Ed25519', undefined, 'quantum-vulnerable', 128, 0, false, [{ status: 'DISALLOWED', year: 2035 }]],
    ['X25519', undefined, 'quantum-vulnerable', 128, 0, false, [{ status: 'DISALLOWED', year: 2035 }]],
    ['DH', '2048', 'quantum-vulnerable', 112, 0, false, [{ status: 'DEPRECATED', year: 2030 }, { status: 'DISALLOWED', year: 2035 }]],
    ['AES', '128', 'weakened', 128, 1, true, [{ status: 'ACCEPTABLE', year: 2035 }]],
    ['AES', '256', 'quantum-resistant', 256, 5, true, [{ status: 'ACCEPTABLE', year: 2035 }]],
    ['SHA-256', undefined, 'weakened', 128, 2, true, [{ status: 'ACCEPTABLE', year: 2035 }]],
    ['SHA-384', undefined, 'quantum-resistant', 192, 4, true, [{ status: 'ACCEPTABLE', year: 2035 }]],
    ['SHA-1', undefined, 'broken', 63, 0, false, [{ status: 'DEPRECATED', year: 2013 }, { status: 'LEGACY_USE', year: 2013 }, { status: 'DISALLOWED', year: 2030 }]],
    ['MD5', undefined, 'broken', 18, 0, false, [{ status: 'DISALLOWED' }]],
    ['DES', undefined, 'broken', 56, 0, false, [{ status: 'DISALLOWED', year: 2005 }]],
    ['3DES', undefined, 'broken', 112, 0, false, [{ status: 'DEPRECATED', year: 2018 }, { status: 'DISALLOWED', year: 2023 }, { status: 'LEGACY_USE', year: 2023 }]],
    ['RC4', undefined, 'broken', 0, 0, false, [{ status: 'DISALLOWED' }]],
    // Not NIST-approved: outside NIST IR 8547 (no status), rather than "resistant" and "disallowed" at once.
    ['ChaCha20-Poly1305', undefined, 'quantum-resistant', 256, 5, false, []],
    ['ML-KEM', '768', 'quantum-resistant', 192, 3, true, [{ status: 'ACCEPTABLE', year: 2035 }]],
    ['ML-KEM', '1024', 'quantum-resistant', 256, 5, true, [{ status: 'ACCEPTABLE', year: 2035 }]],
    ['ML-DSA', '65', 'quantum-resistant', 192, 3, true, [{ status: 'ACCEPTABLE', year: 2035 }]],
    ['ML-DSA', '44', 'quantum-resistant', 128, 2, true, [{ status: 'ACCEPTABLE', year: 2035 }]],
    ['SLH-DSA', '128', 'quantum-resistant', 128, 1, true, [{ status: 'ACCEPTABLE', year: 2035 }]],
    ['LMS', undefined, 'quantum-resistant', 256, 5, true, [{ status: 'ACCEPTABLE', year: 2035 }]],
  ] as const)('%s %s', (algorithm, parameter, klass, classical, level, compliant, transitions) => {
    expect(assess(algorithm, parameter)).toMatchObject({
      quantumClass: klass, classicalSecurityLevel: classical, nistQuantumSecurityLevel: level, compliant, transitions,
    });
  });

  it('recommends ML-KEM for key establishment, ML-DSA/SLH-DSA for signatures, LMS/XMSS for firmware signing', () => {
    expect(assess('ECDH', 'P-256')!.recommendations.map((r) => r.parameter)).toEqual(['ML-KEM-768', 'ML-KEM-1024']);
    expect(assess('ECDSA', 'P-384')!.recommendations.map((r) => r.parameter)).toEqual(['ML-DSA-65', 'ML-DSA-87', 'SLH-DSA-SHA2-192s']);
    expect(assess('RSA', '2048', true)!.recommendations.map((r) => r.algorithm)).toEqual(['LMS', 'XMSS', 'ML-DSA']);
    // Acceptable under NIST IR 8547, so nothing to migrate (they were told to move to AES-256 and SHA-384).
    expect(assess('AES', '128')!.recommendations).toEqual([]);
    expect(assess('SHA-256')!.recommendations).toEqual([]);
    expect(assess('3DES')!.recommendations).toEqual([{ algorithm: 'AES', parameter: 'AES-256-GCM', security: 'NIST category 5' }]);
    expect(assess('SHA-1')!.recommendations.map((r) => r.parameter)).toEqual(['SHA-384', 'SHA3-384']);
    expect(assess('ML-KEM', '768')!.recommendations).toEqual([]);
    expect(assess('no-such-algorithm')).toBeUndefined();
  });

  it('interpolates RSA strength between the SP 800-57 key sizes', () => {
    expect(assess('RSA', '2560')!.classicalSecurityLevel).toBe(112);
    expect(assess('RSA', '4000')!.classicalSecurityLevel).toBe(128);
  });

  it('scores readiness: resistant 1, weakened 0.5, vulnerable and broken 0', () => {
    expect(readinessScore([])).toBe(100);
    expect(readinessScore(['quantum-resistant', 'weakened', 'quantum-vulnerable', 'broken'])).toBe(38);
    expect(readinessScore(['quantum-vulnerable'])).toBe(0);
  });
});

// The one table of post-quantum facts: for each algorithm (by catalog name, NIST approval and classical
// strength) its quantum class, its NIST IR 8547 / SP 800-131A transitions, whether to migrate and why. The
// assessment (pqc.ts), the crypto assets, the CBOM and the PQC JSON and PDF reports all read it, so they cannot
// disagree; test/engine/crypto/pqc-table.test.ts checks that no rule contradicts itself.
//
// Sources, cited per rule below:
//   IR 8547   NIST IR 8547 ipd, "Transition to Post-Quantum Cryptography Standards" (Nov 2024): quantum-vulnerable
//             public-key algorithms (RSA, ECDSA, EdDSA, DH, ECDH) at 112-bit security deprecated after 2030, all
//             disallowed after 2035; AES-128/192/256, SHA-2 and SHA-3 stay acceptable (Grover only halves margins).
//   131A-r2   NIST SP 800-131A Rev. 2 (Mar 2019): under 112-bit security disallowed after 2013; three-key TDEA
//             encryption deprecated through 2023, disallowed after, decryption legacy use; SHA-1 signatures.
//   131A-r3   NIST SP 800-131A Rev. 3 ipd (Oct 2024): SHA-1 and 112-bit-strength hashes (SHA-224, SHA3-224)
//             disallowed after 2030; DSA signature generation disallowed, verification legacy use.
//   186-5     FIPS 186-5 (Feb 2023): DSA no longer approved for signature generation.
//   57        NIST SP 800-57 Part 1 Rev. 5 (2020), Tables 2-3: security strengths of key sizes and hashes.
//   PQC       FIPS 203 (ML-KEM), FIPS 204 (ML-DSA), FIPS 205 (SLH-DSA) (Aug 2024); SP 800-208 (LMS, XMSS,
//             Oct 2020); security categories from the NIST PQC call for proposals (2016), section 4.A.5.
import type { AlgorithmInfo, QuantumClass } from './algorithms.js';

export type TransitionStatus = 'ACCEPTABLE' | 'DEPRECATED' | 'DISALLOWED' | 'LEGACY_USE';

export interface Transition {
  status: TransitionStatus;
  /** The status applies after the end of this year; absent when it has always applied (never approved). */
  year?: number;
}

export interface Recommendation {
  algorithm: string;
  parameter: string;
  /** Human-readable strength, e.g. 'NIST category 3'. */
  security: string;
}

/** Which uses a rule covers; every given condition must hold. Strength is classical bits (SP 800-57). */
export interface PqcMatch {
  names?: string[];
  shor?: boolean;
  nistApproved?: boolean;
  broken?: boolean;
  minStrength?: number;
  belowStrength?: number;
  /** NIST PQC security category of the use (0 when it has none). */
  minCategory?: number;
}

export interface PqcRule {
  id: string;
  match: PqcMatch;
  quantumClass: QuantumClass;
  /** NIST's statuses in order; empty when NIST IR 8547 does not cover the algorithm (it is not NIST-approved). */
  transitions: Transition[];
  /** Whether to move away from it: false exactly when it stays acceptable under NIST IR 8547. */
  migrate: boolean;
  /** Why, for the report ('{name}' is the algorithm, '{category}' its NIST category). */
  reason: string;
  sources: string[];
}

const IR_8547_112 = [{ status: 'DEPRECATED', year: 2030 }, { status: 'DISALLOWED', year: 2035 }] satisfies Transition[];
const ACCEPTABLE = [{ status: 'ACCEPTABLE', year: 2035 }] satisfies Transition[];

/** First matching rule wins: specific algorithms first, then bands of public-key and symmetric strength. */
export const PQC_RULES: readonly PqcRule[] = [
  {
    id: 'des', match: { names: ['DES'] }, quantumClass: 'broken', transitions: [{ status: 'DISALLOWED', year: 2005 }], migrate: true,
    reason: 'DES has a 56-bit key, brute-forced in hours; FIPS 46-3 was withdrawn in 2005',
    sources: ['FIPS 46-3 withdrawal (70 FR 28907, May 2005)', '57 Table 2'],
  },
  {
    id: '3des', match: { names: ['3DES'] }, quantumClass: 'broken',
    transitions: [{ status: 'DEPRECATED', year: 2018 }, { status: 'DISALLOWED', year: 2023 }, { status: 'LEGACY_USE', year: 2023 }], migrate: true,
    reason: 'Triple DES has a 64-bit block (Sweet32, CVE-2016-2183); encryption is disallowed after 2023, decryption is legacy use only',
    sources: ['131A-r2 section 2, Table 1', 'SP 800-67 Rev. 2 withdrawn 2024-01-01'],
  },
  {
    id: 'sha-1', match: { names: ['SHA-1'] }, quantumClass: 'broken',
    transitions: [{ status: 'DEPRECATED', year: 2013 }, { status: 'LEGACY_USE', year: 2013 }, { status: 'DISALLOWED', year: 2030 }], migrate: true,
    reason: 'SHA-1 collisions are practical (SHAttered, 2017): deprecated after 2013 (generating signatures with it is disallowed, verifying old ones is legacy use), and every use is disallowed after 2030',
    sources: ['131A-r2 section 9', '131A-r3', 'NIST, "NIST Retires SHA-1" (Dec 2022)'],
  },
  {
    id: 'rc4', match: { names: ['RC4'] }, quantumClass: 'broken', transitions: [{ status: 'DISALLOWED' }], migrate: true,
    reason: 'RC4 keystream biases let attackers recover plaintext; RFC 7465 prohibits it in TLS and NIST never approved it',
    sources: ['RFC 7465', 'AlFardan et al., "On the Security of RC4 in TLS" (2013)'],
  },
  {
    id: 'broken-not-approved', match: { broken: true, nistApproved: false }, quantumClass: 'broken', transitions: [{ status: 'DISALLOWED' }], migrate: true,
    reason: '{name} is broken classically and was never NIST-approved',
    sources: ['RFC 6151 (MD5)', 'RFC 6150 (MD4)', 'Sweet32 (64-bit blocks: Blowfish)', 'RFC 8018 (RC2 not recommended)'],
  },
  {
    id: 'public-key-under-80', match: { shor: true, belowStrength: 80 }, quantumClass: 'broken', transitions: [{ status: 'DISALLOWED', year: 2013 }], migrate: true,
    reason: '{name} at this size gives under 80-bit security, within reach of classical computation (768-bit RSA and DH were broken publicly in 2009 and 2016); disallowed after 2013',
    sources: ['131A-r2 section 1.2 (under 112 bits disallowed after 2013)', '57 Table 2', 'Kleinjung et al., RSA-768 (2009); Kleinjung et al., 768-bit DLP (2016)'],
  },
  {
    id: 'public-key-under-112', match: { shor: true, nistApproved: true, belowStrength: 112 }, quantumClass: 'quantum-vulnerable', transitions: [{ status: 'DISALLOWED', year: 2013 }], migrate: true,
    reason: '{name} at this size gives under 112-bit security, disallowed after 2013; Shor\'s algorithm also breaks it on a quantum computer',
    sources: ['131A-r2 section 1.2', '57 Table 2'],
  },
  {
    id: 'dsa', match: { names: ['DSA'], minStrength: 112 }, quantumClass: 'quantum-vulnerable',
    transitions: [{ status: 'DISALLOWED', year: 2023 }, { status: 'LEGACY_USE', year: 2023 }], migrate: true,
    reason: 'FIPS 186-5 (February 2023) no longer approves DSA for generating signatures (verifying existing ones is legacy use); Shor\'s algorithm breaks it',
    sources: ['186-5 section 1', '131A-r3'],
  },
  {
    id: 'public-key-112', match: { shor: true, nistApproved: true, minStrength: 112, belowStrength: 128 }, quantumClass: 'quantum-vulnerable', transitions: IR_8547_112, migrate: true,
    reason: '{name} at 112-bit security is broken by Shor\'s algorithm on a quantum computer; NIST IR 8547 deprecates it after 2030 and disallows it after 2035',
    sources: ['IR 8547 Tables 2 and 4'],
  },
  {
    id: 'public-key-128', match: { shor: true, nistApproved: true, minStrength: 128 }, quantumClass: 'quantum-vulnerable', transitions: [{ status: 'DISALLOWED', year: 2035 }], migrate: true,
    reason: '{name} is broken by Shor\'s algorithm on a quantum computer; NIST IR 8547 disallows it after 2035',
    sources: ['IR 8547 Tables 2 and 4'],
  },
  {
    id: 'public-key-not-approved', match: { shor: true, nistApproved: false }, quantumClass: 'quantum-vulnerable', transitions: [], migrate: true,
    reason: '{name} is broken by Shor\'s algorithm on a quantum computer, and is not NIST-approved (so outside NIST IR 8547)',
    sources: ['IR 8547 section 4.1', 'SP 800-186 (approved curves)'],
  },
  {
    id: 'post-quantum', match: { names: ['ML-KEM', 'ML-DSA', 'SLH-DSA', 'LMS', 'XMSS'] }, quantumClass: 'quantum-resistant', transitions: ACCEPTABLE, migrate: false,
    reason: 'a NIST post-quantum standard (NIST category {category})',
    sources: ['PQC', 'IR 8547 section 3'],
  },
  {
    id: 'symmetric-112', match: { shor: false, nistApproved: true, minStrength: 112, belowStrength: 128 }, quantumClass: 'weakened', transitions: [{ status: 'DISALLOWED', year: 2030 }], migrate: true,
    reason: '{name} gives 112-bit security, disallowed after 2030',
    sources: ['131A-r3 (SHA-224, SHA-512/224, SHA3-224)', '57 Table 3'],
  },
  {
    id: 'symmetric-category-3', match: { shor: false, nistApproved: true, minStrength: 128, minCategory: 3 }, quantumClass: 'quantum-resistant', transitions: ACCEPTABLE, migrate: false,
    reason: 'acceptable under NIST IR 8547; Grover\'s algorithm leaves it at NIST category {category}',
    sources: ['IR 8547 section 4.2'],
  },
  {
    id: 'symmetric-128', match: { shor: false, nistApproved: true, minStrength: 128 }, quantumClass: 'weakened', transitions: ACCEPTABLE, migrate: false,
    reason: 'acceptable under NIST IR 8547: Grover\'s algorithm halves its margin, which stays sufficient (NIST category {category})',
    sources: ['IR 8547 section 4.2 (AES-128 and SHA-256 remain acceptable)'],
  },
  {
    id: 'symmetric-not-approved-category-3', match: { shor: false, nistApproved: false, minStrength: 128, minCategory: 3 }, quantumClass: 'quantum-resistant', transitions: [], migrate: true,
    reason: '{name} resists quantum attack (NIST category {category}) but is not NIST-approved, so outside NIST IR 8547: use the NIST-approved equivalent where NIST compliance is required',
    sources: ['IR 8547 section 4.2', 'FIPS 140-3 approved-algorithm list (SP 800-140C)'],
  },
  {
    id: 'symmetric-not-approved', match: { shor: false, nistApproved: false }, quantumClass: 'weakened', transitions: [], migrate: true,
    reason: '{name} is not NIST-approved, so outside NIST IR 8547, and Grover\'s algorithm halves its margin: use the NIST-approved equivalent',
    sources: ['IR 8547 section 4.2', 'SP 800-140C'],
  },
];

/** One use of an algorithm, as the rules see it. */
export interface PqcUse {
  info: AlgorithmInfo;
  strength: number;
  category: number;
}

export function matches(match: PqcMatch, { info, strength, category }: PqcUse): boolean {
  return (match.names === undefined || match.names.includes(info.name))
    && (match.shor === undefined || (info.shor === true) === match.shor)
    && (match.nistApproved === undefined || info.nistApproved === match.nistApproved)
    && (match.broken === undefined || (info.broken === true) === match.broken)
    && (match.minStrength === undefined || strength >= match.minStrength)
    && (match.belowStrength === undefined || strength < match.belowStrength)
    && (match.minCategory === undefined || category >= match.minCategory);
}

export function pqcRule(use: PqcUse): PqcRule | undefined {
  return PQC_RULES.find((rule) => matches(rule.match, use));
}

// What to migrate to, by what the algorithm does. Security categories per FIPS 203/204/205, SP 800-208 and the
// PQC call for proposals (AES-256 = category 5, SHA-384 = category 4).
const SIGNATURE: Recommendation[] = [
  { algorithm: 'ML-DSA', parameter: 'ML-DSA-65', security: 'NIST category 3' },
  { algorithm: 'ML-DSA', parameter: 'ML-DSA-87', security: 'NIST category 5' },
  { algorithm: 'SLH-DSA', parameter: 'SLH-DSA-SHA2-192s', security: 'NIST category 3' },
];
/** Keys that verify firmware (Secure Boot, signed updates): stateful hash-based signatures, SP 800-208. */
const FIRMWARE_SIGNING: Recommendation[] = [
  { algorithm: 'LMS', parameter: 'LMS_SHA256_M32_H10 (SP 800-208)', security: 'NIST category 5' },
  { algorithm: 'XMSS', parameter: 'XMSS-SHA2_10_256 (SP 800-208)', security: 'NIST category 5' },
  { algorithm: 'ML-DSA', parameter: 'ML-DSA-87', security: 'NIST category 5' },
];
const KEY_ESTABLISHMENT: Recommendation[] = [
  { algorithm: 'ML-KEM', parameter: 'ML-KEM-768', security: 'NIST category 3' },
  { algorithm: 'ML-KEM', parameter: 'ML-KEM-1024', security: 'NIST category 5' },
];
const SYMMETRIC: Recommendation[] = [{ algorithm: 'AES', parameter: 'AES-256-GCM', security: 'NIST category 5' }];
const HASH: Recommendation[] = [
  { algorithm: 'SHA-384', parameter: 'SHA-384', security: 'NIST category 4' },
  { algorithm: 'SHA-3', parameter: 'SHA3-384', security: 'NIST category 4' },
];
const MAC: Recommendation[] = [{ algorithm: 'HMAC', parameter: 'HMAC-SHA-384', security: 'NIST category 4' }];
const KDF: Recommendation[] = [
  { algorithm: 'HKDF', parameter: 'HKDF-SHA-384 (SP 800-56C)', security: 'NIST category 4' },
  { algorithm: 'PBKDF2', parameter: 'PBKDF2-HMAC-SHA-384 (SP 800-132)', security: 'NIST category 4' },
];

/** The replacements for an algorithm that must be migrated (by what it does), none for one that stays. */
export function migration(rule: PqcRule, info: AlgorithmInfo, firmwareSigning: boolean): Recommendation[] {
  if (!rule.migrate) return [];
  if (info.name === 'RSA') return firmwareSigning ? FIRMWARE_SIGNING : [...SIGNATURE, ...KEY_ESTABLISHMENT];
  if (info.usage === 'signature') return firmwareSigning ? FIRMWARE_SIGNING : SIGNATURE;
  if (info.usage === 'key-establishment') return KEY_ESTABLISHMENT;
  if (info.usage === 'hash') return HASH;
  if (info.usage === 'mac') return MAC;
  if (info.primitive === 'kdf') return KDF;
  return SYMMETRIC;
}

export function reasonText(rule: PqcRule, info: AlgorithmInfo, category: number): string {
  return rule.reason.replaceAll('{name}', info.name).replaceAll('{category}', String(category));
}

/** How the reports name the standard, and read a transition year. */
export const STANDARD = 'NIST IR 8547 (Transition to Post-Quantum Cryptography Standards, initial public draft, November 2024)';
export const STANDARD_SUMMARY = 'NIST IR 8547: quantum-vulnerable public-key algorithms (RSA, ECDSA, EdDSA, DH, ECDH) at 112-bit security are deprecated after 2030, and all of them are disallowed after 2035; AES, SHA-2 and SHA-3 stay acceptable.';
export const TRANSITION_YEAR_MEANING = 'a transition status applies after the end of its year, as in NIST IR 8547 ("deprecated after 2030"); no status means NIST IR 8547 does not cover the algorithm (it is not NIST-approved)';

/** A transition list as one line of text ('DEPRECATED after 2030; DISALLOWED after 2035'). */
export function transitionText(transitions: readonly Transition[]): string {
  if (!transitions.length) return 'not covered (not NIST-approved)';
  return transitions.map((t) => (t.year ? `${t.status} after ${t.year}` : t.status)).join('; ');
}

// Post-quantum assessment of one algorithm use: quantum class (Shor / Grover / resistant / broken), NIST IR 8547
// transition statuses and years, security strength and category, compliance, and the recommended migration.
// Years follow the IR's wording: a status applies *after* the end of the given year ("deprecated after 2030").
import { algorithmInfo, classicalStrength, nistQuantumLevel, quantumClass, type AlgorithmInfo, type Primitive, type QuantumClass, type Usage } from './algorithms.js';

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

export interface PqcAssessment {
  algorithm: string;
  parameter?: string;
  primitive: Primitive;
  usage: Usage;
  quantumClass: QuantumClass;
  classicalSecurityLevel: number;
  nistQuantumSecurityLevel: number;
  nistApproved: boolean;
  transitions: Transition[];
  /** NIST IR 8547 compliant: approved, and still acceptable after 2035. */
  compliant: boolean;
  reason: string;
  recommendations: Recommendation[];
}

const SIGNATURE_MIGRATION: Recommendation[] = [
  { algorithm: 'ML-DSA', parameter: 'ML-DSA-65', security: 'NIST category 3' },
  { algorithm: 'ML-DSA', parameter: 'ML-DSA-87', security: 'NIST category 5' },
  { algorithm: 'SLH-DSA', parameter: 'SLH-DSA-SHA2-192s', security: 'NIST category 3' },
];
const FIRMWARE_SIGNING_MIGRATION: Recommendation[] = [
  { algorithm: 'LMS', parameter: 'LMS_SHA256_M32_H10 (SP 800-208)', security: 'NIST category 5' },
  { algorithm: 'XMSS', parameter: 'XMSS-SHA2_10_256 (SP 800-208)', security: 'NIST category 5' },
  { algorithm: 'ML-DSA', parameter: 'ML-DSA-87', security: 'NIST category 5' },
];
const KEM_MIGRATION: Recommendation[] = [
  { algorithm: 'ML-KEM', parameter: 'ML-KEM-768', security: 'NIST category 3' },
  { algorithm: 'ML-KEM', parameter: 'ML-KEM-1024', security: 'NIST category 5' },
];
const SYMMETRIC_MIGRATION: Recommendation[] = [{ algorithm: 'AES', parameter: 'AES-256-GCM', security: 'NIST category 5' }];
const HASH_MIGRATION: Recommendation[] = [
  { algorithm: 'SHA-384', parameter: 'SHA-384', security: 'NIST category 4' },
  { algorithm: 'SHA-3', parameter: 'SHA3-384', security: 'NIST category 4' },
];
const MAC_MIGRATION: Recommendation[] = [{ algorithm: 'HMAC', parameter: 'HMAC-SHA-384', security: 'NIST category 4' }];

function transitions(info: AlgorithmInfo, strength: number): Transition[] {
  if (!info.nistApproved) return [{ status: 'DISALLOWED' }];
  if (info.shor) {
    if (strength < 112) return [{ status: 'DISALLOWED', year: 2013 }];
    if (strength < 128) return [{ status: 'DEPRECATED', year: 2030 }, { status: 'DISALLOWED', year: 2035 }];
    return [{ status: 'DISALLOWED', year: 2035 }];
  }
  switch (info.name) {
    case 'SHA-1':
      return [{ status: 'DEPRECATED', year: 2013 }, { status: 'LEGACY_USE', year: 2013 }, { status: 'DISALLOWED', year: 2030 }];
    case '3DES':
      return [{ status: 'DEPRECATED', year: 2018 }, { status: 'DISALLOWED', year: 2023 }, { status: 'LEGACY_USE', year: 2023 }];
    case 'SHA-224':
      return [{ status: 'DISALLOWED', year: 2030 }];
  }
  if (strength < 112) return [{ status: 'DISALLOWED', year: 2030 }];
  return [{ status: 'ACCEPTABLE', year: 2035 }];
}

function recommendations(info: AlgorithmInfo, klass: QuantumClass, firmwareSigning: boolean): Recommendation[] {
  if (klass === 'quantum-resistant') return [];
  if (info.usage === 'signature') return firmwareSigning ? FIRMWARE_SIGNING_MIGRATION : SIGNATURE_MIGRATION;
  if (info.usage === 'key-establishment') return KEM_MIGRATION;
  if (info.name === 'RSA') return [...SIGNATURE_MIGRATION, ...KEM_MIGRATION];
  if (info.usage === 'hash') return HASH_MIGRATION;
  if (info.usage === 'mac') return MAC_MIGRATION;
  if (info.usage === 'symmetric') return SYMMETRIC_MIGRATION;
  return [];
}

function reason(info: AlgorithmInfo, klass: QuantumClass, compliant: boolean): string {
  if (!info.nistApproved) return `${info.name} is not a NIST-approved algorithm`;
  if (klass === 'broken') return `${info.name} at this strength is broken or disallowed already`;
  if (klass === 'quantum-vulnerable') return `${info.name} is broken by Shor's algorithm on a cryptographically relevant quantum computer; NIST IR 8547 disallows it after 2035`;
  if (klass === 'weakened') return compliant ? `acceptable under NIST IR 8547; Grover's algorithm halves its margin (prefer a category 3+ replacement for long-lived data)` : `${info.name} loses its margin against Grover's algorithm`;
  return 'quantum-resistant and NIST-approved';
}

/**
 * Assesses an algorithm with an optional parameter (key size, curve, parameter set). `firmwareSigning` selects
 * the SP 800-208 stateful hash-based migration for keys that sign firmware (Secure Boot, signed updates).
 */
export function assess(name: string, parameter?: string, firmwareSigning = false): PqcAssessment | undefined {
  const info = algorithmInfo(name);
  if (!info) return undefined;
  const classical = classicalStrength(info, parameter);
  const klass = quantumClass(info, parameter);
  const steps = transitions(info, classical);
  const final = steps[steps.length - 1]?.status;
  const compliant = info.nistApproved && final === 'ACCEPTABLE';
  return {
    algorithm: info.name,
    parameter,
    primitive: info.primitive,
    usage: info.usage,
    quantumClass: klass,
    classicalSecurityLevel: classical,
    nistQuantumSecurityLevel: nistQuantumLevel(info, parameter),
    nistApproved: info.nistApproved,
    transitions: steps,
    compliant,
    reason: reason(info, klass, compliant),
    recommendations: recommendations(info, klass, firmwareSigning),
  };
}

export const QUANTUM_CLASSES: QuantumClass[] = ['quantum-vulnerable', 'weakened', 'quantum-resistant', 'broken'];

/** 0..100: share of algorithm uses that stay safe against a quantum adversary (weakened ones count half). */
export function readinessScore(classes: QuantumClass[]): number {
  if (!classes.length) return 100;
  const points = classes.reduce((sum, c) => sum + (c === 'quantum-resistant' ? 1 : c === 'weakened' ? 0.5 : 0), 0);
  return Math.round((100 * points) / classes.length);
}

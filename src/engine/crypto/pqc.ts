// Post-quantum assessment of one algorithm use: its security strength and NIST category (the catalog,
// algorithms.ts) and what the one PQC table (pqc-table.ts) says of it: quantum class, NIST IR 8547 transitions,
// compliance, reason and migration. Years follow the IR's wording: a status applies *after* the end of the year.
import { algorithmInfo, classicalStrength, nistQuantumLevel, type Primitive, type QuantumClass, type Usage } from './algorithms.js';
import { migration, pqcRule, reasonText, type Recommendation, type Transition } from './pqc-table.js';

export type { Recommendation, Transition, TransitionStatus } from './pqc-table.js';

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
  /** NIST IR 8547 compliant: approved, and still acceptable after 2035 (nothing to migrate). */
  compliant: boolean;
  reason: string;
  recommendations: Recommendation[];
  /** The pqc-table rule that decided it. */
  rule: string;
}

/**
 * Assesses an algorithm with an optional parameter (key size, curve, parameter set). `firmwareSigning` selects
 * the SP 800-208 stateful hash-based migration for keys that sign firmware (Secure Boot, signed updates).
 */
export function assess(name: string, parameter?: string, firmwareSigning = false): PqcAssessment | undefined {
  const info = algorithmInfo(name);
  if (!info) return undefined;
  const classical = classicalStrength(info, parameter);
  const category = nistQuantumLevel(info, parameter);
  const rule = pqcRule({ info, strength: classical, category });
  if (!rule) return undefined;
  return {
    algorithm: info.name,
    parameter,
    primitive: info.primitive,
    usage: info.usage,
    quantumClass: rule.quantumClass,
    classicalSecurityLevel: classical,
    nistQuantumSecurityLevel: category,
    nistApproved: info.nistApproved,
    transitions: rule.transitions.map((t) => ({ ...t })),
    compliant: !rule.migrate,
    reason: reasonText(rule, info, category),
    recommendations: migration(rule, info, firmwareSigning),
    rule: rule.id,
  };
}

export const QUANTUM_CLASSES: QuantumClass[] = ['quantum-vulnerable', 'weakened', 'quantum-resistant', 'broken'];

/** 0..100: share of algorithm uses that stay safe against a quantum adversary (weakened ones count half). */
export function readinessScore(classes: QuantumClass[]): number {
  if (!classes.length) return 100;
  const points = classes.reduce((sum, c) => sum + (c === 'quantum-resistant' ? 1 : c === 'weakened' ? 0.5 : 0), 0);
  return Math.round((100 * points) / classes.length);
}

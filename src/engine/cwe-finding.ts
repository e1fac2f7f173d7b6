// The one shape of a rule-detected weakness: a knownVulnerability finding identified by its rule and a CWE,
// fingerprinted by the rule and where it is (a path inside a filesystem, an account, a key or certificate),
// never by offsets, extraction folder names or times. Used by the binaries, weaknesses and crypto analyzers.
import { findingFingerprint } from './fingerprint.js';
import type { EngineFinding, FindingOccurrence, Severity } from './types.js';

export interface CweFindingFields {
  name: string;
  /** Defaults to the name. */
  title?: string;
  description: string;
  severity: Severity;
  cwe: string;
  recommendedAction: string;
  references?: Array<{ url: string; description?: string }>;
  occurrences: FindingOccurrence[];
}

export function cweFinding(rule: string, where: string, fields: CweFindingFields): EngineFinding {
  return {
    fingerprint: findingFingerprint('knownVulnerability', rule, where),
    findingType: 'knownVulnerability',
    pname: rule,
    name: fields.name,
    title: fields.title ?? fields.name,
    description: fields.description,
    severity: fields.severity,
    identifiers: [{ cwe: fields.cwe, rule }],
    recommendedAction: fields.recommendedAction,
    ...(fields.references ? { references: fields.references } : {}),
    occurrences: fields.occurrences,
  };
}

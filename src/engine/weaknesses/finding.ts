// The one way a weakness rule builds its finding: a knownVulnerability with the rule's CWE, identified across
// images by the rule and the place inside the filesystem (the file's path in its filesystem plus, where there is
// one, the account or key), never by offsets, extraction folder names or times.
import { createHash } from 'node:crypto';
import { findingFingerprint } from '../fingerprint.js';
import type { EngineFinding, FindingOccurrence, Severity } from '../types.js';

export interface WeaknessFindingFields {
  /** The identity inside the rule: fsPath, plus the account, key or token hash where there is one. */
  where: string;
  cwe: string;
  severity: Severity;
  name: string;
  description: string;
  recommendedAction: string;
  occurrences: FindingOccurrence[];
  references?: Array<{ url: string; description?: string }>;
}

export function weaknessFinding(rule: string, fields: WeaknessFindingFields): EngineFinding {
  const id = `weakness/${rule}`;
  return {
    fingerprint: findingFingerprint('knownVulnerability', id, fields.where),
    findingType: 'knownVulnerability',
    pname: rule,
    name: fields.name,
    title: fields.name,
    description: fields.description,
    severity: fields.severity,
    identifiers: [{ cwe: fields.cwe, rule: id }],
    recommendedAction: fields.recommendedAction,
    ...(fields.references ? { references: fields.references } : {}),
    occurrences: fields.occurrences,
  };
}

/** What evidence may show of a secret: its length and the first 8 hex digits of its SHA-256, never the value. */
export function secretDigest(secret: string): string {
  return `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 8)}, ${secret.length} characters`;
}

/** `path:line: text` with the text trimmed to a readable length. */
export function lineEvidence(fsPath: string, line: number, text: string): string {
  const trimmed = text.trim();
  return `${fsPath}:${line}: ${trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed}`;
}

// The one way a weakness rule builds its finding: a knownVulnerability with the rule's CWE, identified across
// images by the rule and the place inside the filesystem (the file's path in its filesystem plus, where there is
// one, the account or key), never by offsets, extraction folder names or times.
import { sha256Hex } from '../hash.js';
import { cweFinding, type CweFindingFields } from '../cwe-finding.js';
import type { EngineFinding } from '../types.js';

export interface WeaknessFindingFields extends Omit<CweFindingFields, 'title'> {
  /** The identity inside the rule: fsPath, plus the account, key or token hash where there is one. */
  where: string;
}

/** A weakness rule's finding: the shared CWE finding shape under the rule id `weakness/<rule>`, pname `<rule>`. */
export function weaknessFinding(rule: string, { where, ...fields }: WeaknessFindingFields): EngineFinding {
  return { ...cweFinding(`weakness/${rule}`, where, fields), pname: rule };
}

/** What evidence may show of a secret: its length and the first 8 hex digits of its SHA-256, never the value. */
export function secretDigest(secret: string): string {
  return `sha256:${sha256Hex(secret).slice(0, 8)}, ${secret.length} characters`;
}

/** `path:line: text` with the text trimmed to a readable length. */
export function lineEvidence(fsPath: string, line: number, text: string): string {
  const trimmed = text.trim();
  return `${fsPath}:${line}: ${trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed}`;
}

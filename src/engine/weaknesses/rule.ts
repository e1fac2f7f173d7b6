// A weakness rule: one known weakness (hard-coded credentials, a service that should not run by default, unsafe
// permissions, ...) detected directly from evidence in the extracted image. Each rule is one file, listed in
// rules.ts; the weaknesses analyzer runs them all, contains their crashes and merges their findings.
import type { FileIndex } from '../file-index.js';
import type { EngineFinding, FileNode, Problem } from '../types.js';

export interface WeaknessContext {
  index: FileIndex;
  signal: AbortSignal;
  /** Contents of a small text file (cached across rules); undefined for a binary or a file over `maxBytes`. */
  text(node: FileNode, maxBytes?: number): Promise<string | undefined>;
  /** Records a problem (a file not checked, a limit) under the rule's id. */
  note(problem: Omit<Problem, 'source'>): void;
  /**
   * The findings of each of `nodes` in order, for a rule that judges a file by its bytes and its path alone
   * (`judge`): from the analysis cache where an earlier scan judged the same file (analysis-cache.ts), otherwise
   * judged now and kept for the next scan.
   */
  perFile(nodes: readonly FileNode[], judge: (node: FileNode) => Promise<EngineFinding[]>): Promise<EngineFinding[]>;
}

export interface WeaknessRule {
  /** Kebab-case id; findings carry it as pname and as `weakness/<id>` in identifiers. */
  id: string;
  run(ctx: WeaknessContext): Promise<EngineFinding[]>;
}

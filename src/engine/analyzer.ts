// An analysis stage that runs after unpacking: inventory, vulnerability matching, crypto, malware, binaries.
// Each analyzer reads the FileIndex and what earlier analyzers added, and adds to the result. A crashing
// analyzer is contained: the engine records a Problem and the others still run. The list lives in analyzers.ts.
import type { DebugFileInput } from './binaries/debug-files.js';
import type { FileIndex } from './file-index.js';
import type { BinaryInfo, Component, CryptoAsset, EngineFinding, ImageInfo, Problem } from './types.js';
import type { CustomRuleSource } from './malware/rules.js';
import type { KernelEvidence } from './vulns/kernel-evidence.js';
import type { KernelTriageSummary } from './vulns/kernel-triage.js';
import type { VulnerabilitySource } from './vulns/source.js';

export interface AnalysisContext {
  image: ImageInfo;
  index: FileIndex;
  /** Filled in by analyzers, in the order of analyzers.ts. */
  components: Component[];
  findings: EngineFinding[];
  cryptoAssets: CryptoAsset[];
  /** Filled by the binaries analyzer; absent in contexts built without it. */
  binaries?: BinaryInfo[];
  problems: Problem[];
  /** Set by the vulnerability matcher when the image has a kernel: its build evidence and the triage's counts. */
  kernel?: { evidence: KernelEvidence; triage: KernelTriageSummary };
  /** Known-vulnerability data, when the caller has a database; matching is skipped without it. */
  vulnerabilities?: VulnerabilitySource;
  /** An organisation's own YARA rule sources, scanned with the built-in rules (engine/malware). */
  rules?: CustomRuleSource[];
  /** Built-in rules switched off by the organisation, by id ('builtin/<file>/<rule>', see malware/rule-catalog.ts). */
  disabledBuiltinRules?: string[];
  /** Debug files attached to the image (local paths and names), matched to its binaries by the binaries analyzer. */
  debugFiles?: DebugFileInput[];
  signal: AbortSignal;
  /** Reports progress inside the analysis phase (0..100 of this analyzer). */
  progress(percent: number): void;
}

export interface Analyzer {
  /** Kebab-case id: 'inventory', 'vulnerability-matcher', 'crypto', ... */
  id: string;
  /** Progress phase name shown on a running scan. */
  phase: string;
  run(ctx: AnalysisContext): Promise<void>;
}

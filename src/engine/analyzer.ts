// An analysis stage that runs after unpacking: inventory, vulnerability matching, crypto, malware, binaries.
// Each analyzer reads the FileIndex and what earlier analyzers added, and adds to the result. A crashing
// analyzer is contained: the engine records a Problem and the others still run. The list lives in analyzers.ts.
import type { FileFacetCache } from './analysis-cache.js';
import type { DebugFileInput } from './binaries/debug-files.js';
import type { FileIndex } from './file-index.js';
import type { BinaryInfo, Component, CryptoAsset, EngineFinding, FileNode, ImageInfo, Problem } from './types.js';
import type { CustomRuleSource } from './malware/rules.js';
import type { KernelEvidence } from './vulns/kernel-evidence.js';
import type { KernelTriageSummary } from './vulns/kernel-triage.js';
import type { VulnerabilitySource } from './vulns/source.js';

/** What a stage may use while the image is still being unpacked (Analyzer.early): the scan's settings, no files yet. */
export interface EarlyContext {
  /** The work folder the files are unpacked into (a node's file is at workDir/node.path). */
  workDir: string;
  rules?: CustomRuleSource[];
  disabledBuiltinRules?: string[];
  fileCache?: FileFacetCache;
  signal: AbortSignal;
  /** What each stage's early work leaves for its turn, by stage id (AnalysisContext.begun is the same map). */
  begun: Map<string, unknown>;
}

/** A stage's early work: each regular file as soon as it is on disk, and what to do if the scan ends before its turn. */
export interface EarlyWork {
  /** Must not throw: it runs inside the unpacker's writes. */
  file(node: FileNode): void;
  abandon(): void;
}

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
  /** Per-file results of earlier scans (analysis-cache.ts); absent when the scan has no cache. */
  fileCache?: FileFacetCache;
  /** What the stages' early work (Analyzer.early) left for their turn, by stage id. */
  begun?: Map<string, unknown>;
  signal: AbortSignal;
  /** Reports progress inside the analysis phase (0..100 of this analyzer). */
  progress(percent: number): void;
}

/** What one stage added to the context (the image-level cache keeps it per stage, image-cache.ts). */
export interface StageOutput {
  components: Component[];
  findings: EngineFinding[];
  cryptoAssets: CryptoAsset[];
  binaries: BinaryInfo[];
  problems: Problem[];
}

export interface Analyzer {
  /** Kebab-case id: 'inventory', 'vulnerability-matcher', 'crypto', ... */
  id: string;
  /** Progress phase name shown on a running scan. */
  phase: string;
  run(ctx: AnalysisContext): Promise<void>;
  /**
   * For a stage that needs only the files: begins its work as soon as they are unpacked, before the earlier stages
   * run, so that it goes on beside them on another thread; `run` then finishes it at the stage's turn and adds the
   * results in the same order as without it. Adds nothing to the context itself. Not called when the stage is
   * replayed from the image cache.
   */
  start?(ctx: AnalysisContext): void;
  /**
   * For a stage whose per-file work can begin while the image is unpacked: called before the unpacking, and given
   * each regular file as soon as it is on disk; `start` and `run` find what it began in `ctx.begun`. Not called
   * for an image found in the cache.
   */
  early?(ectx: EarlyContext): EarlyWork;
  /**
   * For a stage whose output depends on more than the image (the database, the date): how a scan of an image
   * analysed before runs it without the files. `keep` runs at the end of the full scan, files still at hand, and
   * returns what `run` will need (plain data); `run` gets that and what the stage added then. Without it, the
   * stage's additions are restored as they were.
   */
  replay?: {
    keep?(ctx: AnalysisContext): Promise<unknown>;
    run(ctx: AnalysisContext, added: StageOutput, kept: unknown): Promise<void>;
  };
}

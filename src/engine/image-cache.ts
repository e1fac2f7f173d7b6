// The image level of the analysis cache (analysis-cache.ts): a scan of an image analysed before, with the same
// engine, rules, debug files and limits, skips unpacking and the per-file analyzers. What a full scan keeps is
// its unpacked tree (the files' list, not their bytes) and, stage by stage, what each analyzer added. A stage
// whose output depends on more than the image says so with its `replay` (analyzer.ts): vulnerability matching
// runs again against today's database, on the kernel evidence kept; crypto checks certificates against today's
// date. Everything else is restored as it was, in the stages' order, so the result is the one a full scan gives.
import type { AnalysisContext, Analyzer, StageOutput } from './analyzer.js';
import { cacheKey } from './analysis-cache.js';
import { engineDigest } from './engine-digest.js';
import type { DebugFileInput } from './binaries/debug-files.js';
import { hashFile } from './hash.js';
import { ruleSetDigest } from './malware/rule-catalog.js';
import type { CustomRuleSource } from './malware/rules.js';
import type { FileNode, ImageInfo, Problem, UnknownChunk } from './types.js';
import type { UnpackStats } from './unpack/driver.js';
import type { Limits } from './unpack/limits.js';

/** What unpacking gave, as the engine uses it after the unpacker (the same shape from a run or from the cache). */
export interface UnpackedTree {
  files: FileNode[];
  unknownChunks: UnknownChunk[];
  problems: Problem[];
  stats: Omit<UnpackStats, 'durationMs'>;
}

export interface ImageSnapshot {
  tree: UnpackedTree;
  stages: Array<{ id: string; added: StageOutput; kept?: unknown }>;
}

export interface ImageKeyInput {
  image: ImageInfo;
  limits?: Partial<Limits>;
  rules?: CustomRuleSource[];
  disabledBuiltinRules?: string[];
  debugFiles?: DebugFileInput[];
  analyzers: readonly Analyzer[];
  /** Ids of the handlers when the caller chose them (tests); absent for the registry, which the engine digest covers. */
  handlers?: readonly string[];
}

/** Everything a full scan's result depends on, apart from the vulnerability database and the date. */
export async function imageKey(input: ImageKeyInput): Promise<string> {
  const debug: string[] = [];
  for (const file of input.debugFiles ?? []) debug.push(`${file.name}\0${(await hashFile(file.path, ['sha256'])).sha256}`);
  const limits = Object.entries(input.limits ?? {}).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b));
  return cacheKey(
    'image',
    engineDigest(),
    input.image.hashes.sha256,
    input.image.fileName,
    ruleSetDigest(input.rules, input.disabledBuiltinRules),
    JSON.stringify((input.rules ?? []).map((r) => [r.id, r.name])),
    JSON.stringify(debug.sort()),
    JSON.stringify(limits),
    input.analyzers.map((a) => a.id).join(','),
    input.handlers?.join(',') ?? 'registry',
  );
}

/** Lengths of the context's lists, taken before each stage: what a stage added is the range up to the next mark. */
type Marks = Record<keyof StageOutput, number>;

export class StageRecorder {
  private readonly marks: Marks[] = [];

  mark(ctx: AnalysisContext): void {
    this.marks.push({
      components: ctx.components.length,
      findings: ctx.findings.length,
      cryptoAssets: ctx.cryptoAssets.length,
      binaries: ctx.binaries?.length ?? 0,
      problems: ctx.problems.length,
    });
  }

  /** After the last stage (before findings are merged): each stage's additions, as they are at the end. */
  async snapshot(ctx: AnalysisContext, analyzers: readonly Analyzer[], tree: UnpackedTree): Promise<ImageSnapshot> {
    this.mark(ctx);
    const stages: ImageSnapshot['stages'] = [];
    for (const [i, analyzer] of analyzers.entries()) {
      const [from, to] = [this.marks[i]!, this.marks[i + 1]!];
      const added: StageOutput = {
        components: ctx.components.slice(from.components, to.components),
        findings: ctx.findings.slice(from.findings, to.findings),
        cryptoAssets: ctx.cryptoAssets.slice(from.cryptoAssets, to.cryptoAssets),
        binaries: (ctx.binaries ?? []).slice(from.binaries, to.binaries),
        problems: ctx.problems.slice(from.problems, to.problems),
      };
      const kept = await analyzer.replay?.keep?.(ctx);
      stages.push({ id: analyzer.id, added, ...(kept === undefined ? {} : { kept }) });
    }
    return { tree: { ...tree, problems: ctx.problems.slice(0, this.marks[0]!.problems) }, stages };
  }
}

/** Runs one stage from the snapshot instead of the files. */
export async function replayStage(ctx: AnalysisContext, analyzer: Analyzer, stage: ImageSnapshot['stages'][number]): Promise<void> {
  if (stage.id !== analyzer.id) throw new Error(`cached stage ${stage.id} where ${analyzer.id} was expected`);
  if (analyzer.replay) return analyzer.replay.run(ctx, stage.added, stage.kept);
  restoreOutput(ctx, stage.added);
}

/** Adds a stage's kept output to the context as it was. */
export function restoreOutput(ctx: AnalysisContext, added: Partial<StageOutput>): void {
  ctx.components.push(...(added.components ?? []));
  ctx.findings.push(...(added.findings ?? []));
  ctx.cryptoAssets.push(...(added.cryptoAssets ?? []));
  if (added.binaries?.length) (ctx.binaries ??= []).push(...added.binaries);
  ctx.problems.push(...(added.problems ?? []));
}

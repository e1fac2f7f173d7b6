// The whole offline analysis of one image, as one function: hash and type the image, unpack it into the work
// folder, index what came out, and run every analyzer in order. The service's workers and `firmscope scan` both
// call exactly this. A crashing analyzer is contained as a Problem; the others still run. The result carries a
// summary that says whether it can be trusted (problems.ts); an image with nothing recognised and nothing to
// analyse is refused with an UnrecognisedImageError rather than returned as a clean, empty result.
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { DebugFileInput } from './binaries/debug-files.js';
import { FileFacetCache, storedFormMemo, type AnalysisCache, type CacheStats } from './analysis-cache.js';
import { analyzers as registeredAnalyzers } from './analyzers.js';
import { imageKey, replayStage, StageRecorder, type ImageSnapshot, type UnpackedTree } from './image-cache.js';
import { UnrecognisedImageError } from './errors.js';
import type { AnalysisContext, Analyzer, EarlyContext } from './analyzer.js';
import { FileIndex } from './file-index.js';
import { detectType } from './file-type.js';
import { mergeFindingsByFingerprint } from './finding-merge.js';
import { hashFile } from './hash.js';
import { summarise, unrecognisedReason, withLevels } from './problems.js';
import type { Hashes, ScanResult } from './types.js';
import type { Limits } from './unpack/limits.js';
import { unpack, type UnpackResult } from './unpack/driver.js';
import { ruleSetDigest } from './malware/rule-catalog.js';
import type { CustomRuleSource } from './malware/rules.js';
import type { Handler } from './unpack/handler.js';
import { FileReuse } from './unpack/file-reuse.js';
import type { ExtractedFileStore } from './unpack/file-store.js';
import { ENGINE_VERSION } from './version.js';
import type { VulnerabilitySource } from './vulns/source.js';

export interface ScanOptions {
  /** Folder the image is unpacked into (created when missing); the caller owns and removes it. */
  workDir: string;
  limits?: Partial<Limits>;
  signal?: AbortSignal;
  onProgress?: (p: { phase: string; percent: number }) => void;
  vulnerabilities?: VulnerabilitySource;
  /** An organisation's own YARA rule sources ({id, name, source}), scanned with the built-in rules. */
  rules?: CustomRuleSource[];
  /** Built-in rules not to report, by id ('builtin/<file>/<rule>'): an organisation's false positives. */
  disabledBuiltinRules?: string[];
  /** Debug files attached to the image ({local path, name}): ELF debug files and PDBs that name stripped binaries' functions. */
  debugFiles?: DebugFileInput[];
  /** Defaults to the registries; tests pass their own. */
  analyzers?: readonly Analyzer[];
  handlers?: readonly Handler[];
  /** Results of earlier scans to reuse, and where this one's are kept (analysis-cache.ts); absent: no caching. */
  analysisCache?: AnalysisCache;
  /**
   * Files extracted by earlier scans, by content (file-store.ts): with the analysis cache, a file another image
   * stores alike (the next firmware version) is placed from here instead of decoded.
   */
  fileStore?: ExtractedFileStore;
  /** The image's own file name (default: the file name of imagePath); the service passes the uploaded name. */
  imageName?: string;
  /**
   * The image's digests, computed by the caller beside its own start (the CLI's main thread while the engine's
   * thread loads) and of this very file; undefined, or a promise of undefined: computed here.
   */
  imageHashes?: Promise<Hashes | undefined>;
}

export async function scan(imagePath: string, options: ScanOptions): Promise<ScanResult> {
  const started = Date.now();
  const signal = options.signal ?? new AbortController().signal;
  const progress = options.onProgress ?? (() => {});
  const phases: Record<string, number> = {};
  let phaseStart = started;
  const endPhase = (phase: string) => {
    const now = Date.now();
    phases[phase] = (phases[phase] ?? 0) + (now - phaseStart);
    phaseStart = now;
  };
  progress({ phase: 'hash', percent: 0 });
  const { size } = await stat(imagePath);
  // The SHA-256 keys the cache and names the image to the unpacker; SHA-1 and MD5 are only reported, so they are
  // computed beside the unpacking (in 32 MiB turns of the engine thread: 0.1 s of a 64 MB image's scan).
  const given = await options.imageHashes?.catch(() => undefined);
  const hashes: Hashes = given ? { ...given } : { ...(await hashFile(imagePath, ['sha256'])), sha1: '', md5: '' };
  const otherHashes = given ? Promise.resolve(given) : hashFile(imagePath, ['sha1', 'md5']);
  otherHashes.catch(() => undefined); // awaited once the tree is there
  const head = await readHead(imagePath);
  const image = { fileName: options.imageName ?? basename(imagePath), size, hashes, type: detectType(head) };
  endPhase('hash');

  const analyzers = options.analyzers ?? registeredAnalyzers;
  const cache = options.analysisCache;
  const key = cache
    ? await imageKey({ ...options, image, analyzers, handlers: options.handlers?.map((h) => h.id) })
    : undefined;
  const cached = cache && key ? await readSnapshot(cache, key) : undefined;
  const fileCache = cache && !cached ? new FileFacetCache(cache) : undefined;
  const reuse = cache && fileCache && options.fileStore ? new FileReuse(options.fileStore, storedFormMemo(cache, fileCache)) : undefined;

  const begun = new Map<string, unknown>();
  let tree: UnpackedTree;
  // what the unpacker hands to the analysis beside the tree (absent when the tree comes from the cache)
  let handOver: Pick<UnpackResult, 'heads' | 'encodedRanges'> | undefined;
  if (cached) {
    Object.assign(hashes, await otherHashes);
    endPhase('hash'); // nothing to unpack beside: the hashes are all the time this takes (with the cache lookup)
    tree = cached.tree;
  } else {
    // Stages that can work on each file as it is unpacked begin now (Analyzer.early). That work only saves time: a
    // stage whose early work fails does it all at its own turn, as without it.
    const earlyContext: EarlyContext = { workDir: options.workDir, rules: options.rules, disabledBuiltinRules: options.disabledBuiltinRules, fileCache, signal, begun };
    const early = analyzers.flatMap((analyzer) => {
      try {
        return analyzer.early?.(earlyContext) ?? [];
      } catch {
        begun.delete(analyzer.id);
        return [];
      }
    });
    const unpacked = await unpack(imagePath, options.workDir, {
      limits: options.limits,
      signal,
      onProgress: progress,
      handlers: options.handlers,
      imageName: options.imageName,
      imageSha256: hashes.sha256,
      reuse,
      onFile: early.length ? (node) => early.forEach((work) => work.file(node)) : undefined,
    }).catch((error: unknown) => {
      early.forEach((work) => work.abandon());
      throw error;
    });
    // Handlers write files concurrently, so the unpacker lists them in completion order; sorted by path, every
    // analyzer walks them in the same order and the same image gives the same result, byte for byte.
    const files = [...unpacked.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    // listed as containers finish, like the files: in path and offset order, so the same input gives the same JSON
    const unknownChunks = [...unpacked.unknownChunks].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.offset - b.offset));
    const { durationMs: _, ...stats } = unpacked.stats;
    tree = { files, unknownChunks, problems: unpacked.problems, stats };
    handOver = unpacked;
    Object.assign(hashes, await otherHashes);
  }
  endPhase('unpack');

  const ctx: AnalysisContext = {
    image,
    index: new FileIndex(options.workDir, tree.files, { heads: handOver?.heads, encodedRanges: handOver?.encodedRanges }),
    components: [],
    findings: [],
    cryptoAssets: [],
    binaries: [],
    problems: [...tree.problems],
    vulnerabilities: options.vulnerabilities,
    rules: options.rules,
    disabledBuiltinRules: options.disabledBuiltinRules,
    debugFiles: options.debugFiles,
    fileCache,
    begun,
    signal,
    progress: () => {},
  };
  // stages that need only the files start now, beside the ones before them (Analyzer.start)
  if (!cached) for (const analyzer of analyzers) analyzer.start?.(ctx);
  const recorder = new StageRecorder();
  for (const [i, analyzer] of analyzers.entries()) {
    signal.throwIfAborted();
    progress({ phase: analyzer.phase, percent: 0 });
    ctx.progress = (percent) => progress({ phase: analyzer.phase, percent });
    recorder.mark(ctx);
    try {
      await (cached ? replayStage(ctx, analyzer, cached.stages[i]!) : analyzer.run(ctx));
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const message = error instanceof Error ? error.message : String(error);
      ctx.problems.push({ source: analyzer.id, kind: 'error', level: 'error', message: `analyzer failed: ${message}` });
    }
    progress({ phase: analyzer.phase, percent: 100 });
    endPhase(analyzer.phase);
  }
  // serialised now: merging findings below changes some of them in place
  const snapshot = cache && !cached ? JSON.stringify(await recorder.snapshot(ctx, analyzers, tree)) : undefined;
  ctx.findings = mergeFindingsByFingerprint(ctx.findings); // one finding per fingerprint, whichever analyzers made them

  const problems = withLevels(ctx.problems);
  const durationMs = Date.now() - started;
  const summary = summarise({
    problems,
    filesExtracted: tree.stats.filesExtracted,
    bytesExtracted: tree.stats.bytesExtracted,
    formats: tree.stats.formats,
    imageSize: size,
    coveredBytes: tree.stats.coveredBytes,
    phases,
    durationMs,
  });
  const reason = unrecognisedReason({
    type: image.type,
    head,
    formats: tree.stats.formats,
    errors: summary.problems.error,
    found: ctx.components.length + ctx.cryptoAssets.length + ctx.findings.length,
  });
  if (reason) throw new UnrecognisedImageError(reason);
  const cacheStats = cache ? await writeCache(cache, { key: key!, snapshot, fileCache, complete: summary.complete && !problems.some((p) => p.kind === 'limit') }) : undefined;
  return {
    engineVersion: ENGINE_VERSION,
    image,
    files: tree.files,
    unknownChunks: tree.unknownChunks,
    components: ctx.components,
    findings: ctx.findings,
    cryptoAssets: ctx.cryptoAssets,
    binaries: ctx.binaries,
    ...(ctx.kernel ? { kernelEvidence: ctx.kernel.evidence } : {}),
    problems,
    stats: {
      durationMs,
      filesExtracted: tree.stats.filesExtracted,
      bytesExtracted: tree.stats.bytesExtracted,
      formats: tree.stats.formats,
    },
    summary: {
      ...summary,
      ...(ctx.kernel ? { kernelTriage: ctx.kernel.triage } : {}),
      ruleSet: ruleSetDigest(options.rules, options.disabledBuiltinRules),
      ...(cacheStats ? { cache: cacheStats } : {}),
    },
  };
}

/** The image's snapshot, when the cache has one (a cache that fails to answer is a miss: it only costs time). */
async function readSnapshot(cache: AnalysisCache, key: string): Promise<ImageSnapshot | undefined> {
  try {
    const value = (await cache.get([key])).get(key);
    return value === undefined ? undefined : (JSON.parse(value) as ImageSnapshot);
  } catch {
    return undefined;
  }
}

/**
 * Writes what this scan computed in one batch: the files' results and, for a complete scan, the image's
 * snapshot (a scan cut short by a limit or an error is not kept: a later scan tries again). A failed write
 * costs only the next scan's time, so it is not the scan's problem.
 */
async function writeCache(
  cache: AnalysisCache,
  done: { key: string; snapshot?: string; fileCache?: FileFacetCache; complete: boolean },
): Promise<CacheStats> {
  const entries: Array<[string, string]> = done.fileCache?.entries() ?? [];
  if (done.snapshot && done.complete) entries.push([done.key, done.snapshot]);
  if (entries.length) await cache.put(entries).catch(() => undefined);
  return { image: done.fileCache ? 'miss' : 'hit', filesReused: done.fileCache?.filesReused ?? 0, filesAnalysed: done.fileCache?.filesAnalysed ?? 0 };
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(512);
    const { bytesRead } = await handle.read(buffer, 0, 512, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

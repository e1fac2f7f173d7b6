// The 'binaries' analysis stage: every ELF executable or shared object and every PE/TE image of the tree is
// read once (one buffer) and gives a BinaryInfo (hardening, unsafe functions with call sites, symbol counts)
// in ScanResult.binaries, plus its findings (binary-findings.ts). Relocatable objects and kernel modules are
// not binaries here. A file that does not parse (or trips a bug) is noted and skipped; the stage goes on.
// Debug files attached to the image (debug-files.ts) name the functions of the stripped binaries they match.
import type { AnalysisContext, Analyzer } from '../analyzer.js';
import { facetLookup, type FacetLookup } from '../analysis-cache.js';
import type { BinaryInfo, FileNode } from '../types.js';
import { FormatError } from '../format-error.js';
import { binaryFindings } from './binary-findings.js';
import { DebugSymbolIndex } from './debug-files.js';
import { isElf } from './elf.js';
import { analyzeElf } from './elf-binary.js';
import { isPe } from './pe.js';
import { analyzePe } from './pe-binary.js';

export interface BinariesAnalyzerOptions {
  /** Larger files are skipped with a note (bytes; default 128 MiB). */
  maxFileSize?: number;
}

/** File types that may be binaries: typed by the unpacker, or untyped ('data', e.g. a plain folder's files). */
const MAY_BE_BINARY = new Set(['elf', 'pe', 'data']);

/** What a file gives (the cached facet): nothing when it is not an ELF or PE binary. */
interface Analyzed {
  binary?: BinaryInfo;
  mitigationsApply: boolean;
}

async function analyzeBytes(ctx: AnalysisContext, node: FileNode, debug: DebugSymbolIndex): Promise<Analyzed> {
  const head = await ctx.index.readRange(node, 0, 4);
  const elf = isElf(head);
  if (!elf && !isPe(head)) return { mitigationsApply: false };
  const buf = await ctx.index.read(node);
  return elf ? { binary: await analyzeElf(node.path, buf, debug), mitigationsApply: true } : await analyzePe(node.path, buf, debug);
}

async function analyzeNode(ctx: AnalysisContext, node: FileNode, debug: DebugSymbolIndex, cache: FacetLookup<Analyzed>): Promise<void> {
  const cached = cache.get(node);
  if (cached?.binary) cached.binary.path = node.path; // the cache keeps what the path in the tree does not change
  const analyzed = cached ?? (await analyzeBytes(ctx, node, debug));
  if (!cached) cache.put(node, analyzed);
  if (!analyzed.binary) return;
  (ctx.binaries ??= []).push(analyzed.binary);
  ctx.findings.push(...binaryFindings(analyzed.binary, node.fsPath, analyzed.mitigationsApply));
}

export function createBinariesAnalyzer(options: BinariesAnalyzerOptions = {}): Analyzer {
  const maxFileSize = options.maxFileSize ?? 128 * 1024 * 1024;
  return {
    id: 'binaries',
    phase: 'binary analysis',
    async run(ctx: AnalysisContext): Promise<void> {
      const debug = await DebugSymbolIndex.load(ctx.debugFiles ?? [], ctx.problems, ctx.signal);
      const files = ctx.index.files().filter((n) => n.size >= 64 && MAY_BE_BINARY.has(n.type));
      // attached debug files are matched as binaries are analysed (and unmatched ones reported): no reuse with them
      const candidates = files.filter((n) => n.size <= maxFileSize);
      const cache = await facetLookup<Analyzed>(ctx.debugFiles?.length ? undefined : ctx.fileCache, 'binaries', `max-size ${maxFileSize}`, candidates);
      let done = 0;
      for (const node of files) {
        ctx.signal.throwIfAborted();
        if (node.size > maxFileSize) {
          ctx.problems.push({ path: node.path, source: 'binaries', kind: 'limit', message: `not analysed: ${node.size} bytes exceeds the ${maxFileSize}-byte limit` });
        } else {
          try {
            await analyzeNode(ctx, node, debug, cache);
          } catch (error) {
            if (ctx.signal.aborted) throw error;
            // A malformed binary is expected in firmware; anything else is a bug, reported but contained to the file.
            const malformed = error instanceof FormatError || error instanceof RangeError;
            ctx.problems.push({ path: node.path, source: 'binaries', kind: malformed ? 'warning' : 'error', message: `not analysed as a binary: ${(error as Error).message}` });
          }
        }
        ctx.progress(Math.floor((++done * 100) / files.length));
      }
      debug.reportUnmatched(ctx.problems);
    },
  };
}

export const binariesAnalyzer = createBinariesAnalyzer();

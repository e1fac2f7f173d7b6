// The 'binaries' analysis stage: every ELF executable or shared object and every PE/TE image of the tree is
// read once (one buffer) and gives a BinaryInfo (hardening, unsafe functions with call sites, symbol counts)
// in ScanResult.binaries, plus its findings (binary-findings.ts). Relocatable objects and kernel modules are
// not binaries here. A file that does not parse (or trips a bug) is noted and skipped; the stage goes on.
// Debug files attached to the image (debug-files.ts) name the functions of the stripped binaries they match.
import type { AnalysisContext, Analyzer } from '../analyzer.js';
import type { FileNode } from '../types.js';
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

async function analyzeNode(ctx: AnalysisContext, node: FileNode, debug: DebugSymbolIndex): Promise<void> {
  const head = await ctx.index.readRange(node, 0, 4);
  const elf = isElf(head);
  if (!elf && !isPe(head)) return;
  const buf = await ctx.index.read(node);
  const analyzed = elf ? { binary: await analyzeElf(node.path, buf, debug), mitigationsApply: true } : await analyzePe(node.path, buf, debug);
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
      let done = 0;
      for (const node of files) {
        ctx.signal.throwIfAborted();
        if (node.size > maxFileSize) {
          ctx.problems.push({ path: node.path, source: 'binaries', kind: 'limit', message: `not analysed: ${node.size} bytes exceeds the ${maxFileSize}-byte limit` });
        } else {
          try {
            await analyzeNode(ctx, node, debug);
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

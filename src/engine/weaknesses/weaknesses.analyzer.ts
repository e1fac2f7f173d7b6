// The 'weaknesses' stage: known weaknesses detected by rule from evidence in the image (weaknesses/rules.ts):
// hard-coded and default credentials, services that should not run by default, unsafe permissions. Each rule
// reads through the FileIndex (small text files once, cached across rules); a crashing rule is contained as a
// problem and the others still run. Findings of one rule that share a fingerprint (the same file twice in one
// image) become one finding with all occurrences.
import type { AnalysisContext, Analyzer } from '../analyzer.js';
import type { EngineFinding, FileNode } from '../types.js';
import type { WeaknessContext, WeaknessRule } from './rule.js';
import { weaknessRules } from './rules.js';

const DEFAULT_TEXT_LIMIT = 256 * 1024;
const BINARY_PROBE = 8192;

export function createWeaknessesAnalyzer(rules: readonly WeaknessRule[] = weaknessRules): Analyzer {
  return {
    id: 'weaknesses',
    phase: 'known weaknesses',
    async run(ctx: AnalysisContext): Promise<void> {
      const texts = new Map<string, string | undefined>();
      const text = async (node: FileNode, maxBytes = DEFAULT_TEXT_LIMIT): Promise<string | undefined> => {
        if (node.kind !== 'file' || node.size > maxBytes) return undefined;
        if (!texts.has(node.path)) {
          const data = await ctx.index.read(node);
          texts.set(node.path, data.subarray(0, BINARY_PROBE).includes(0) ? undefined : data.toString('utf8'));
        }
        return texts.get(node.path);
      };
      const byFingerprint = new Map<string, EngineFinding>();
      for (const [i, rule] of rules.entries()) {
        ctx.signal.throwIfAborted();
        const wctx: WeaknessContext = {
          index: ctx.index,
          signal: ctx.signal,
          text,
          note: (p) => ctx.problems.push({ ...p, source: `weakness/${rule.id}` }),
        };
        try {
          for (const finding of await rule.run(wctx)) {
            const existing = byFingerprint.get(finding.fingerprint);
            if (existing) existing.occurrences.push(...finding.occurrences);
            else byFingerprint.set(finding.fingerprint, finding);
          }
        } catch (error) {
          if (ctx.signal.aborted) throw error;
          ctx.problems.push({ source: `weakness/${rule.id}`, kind: 'error', message: `rule failed: ${error instanceof Error ? error.message : String(error)}` });
        }
        ctx.progress(Math.floor(((i + 1) * 100) / rules.length));
      }
      ctx.findings.push(...byFingerprint.values());
    },
  };
}

export const weaknessesAnalyzer = createWeaknessesAnalyzer();

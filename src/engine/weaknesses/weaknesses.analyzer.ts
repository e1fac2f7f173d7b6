// The 'weaknesses' stage: known weaknesses detected by rule from evidence in the image (weaknesses/rules.ts):
// hard-coded and default credentials, services that should not run by default, unsafe permissions. Each rule
// reads through the FileIndex (small text files once, cached across rules); a crashing rule is contained as a
// problem and the others still run. Rules report each occurrence as a finding; those that share a fingerprint
// (the same rule, file and account or key) become one finding with all occurrences.
import { facetLookup, findingsAt } from '../analysis-cache.js';
import type { AnalysisContext, Analyzer } from '../analyzer.js';
import type { EngineFinding, FileNode } from '../types.js';
import { severityRank } from '../vulns/cvss.js';
import type { WeaknessContext, WeaknessRule } from './rule.js';
import { weaknessRules } from './rules.js';

const DEFAULT_TEXT_LIMIT = 256 * 1024;
const BINARY_PROBE = 8192;
const CACHE_LIMIT = 64 * 1024;

/** Rules return one finding per occurrence; those sharing a fingerprint become one, described by the most severe. */
function merge(byFingerprint: Map<string, EngineFinding>, finding: EngineFinding): void {
  const existing = byFingerprint.get(finding.fingerprint);
  if (!existing) byFingerprint.set(finding.fingerprint, finding);
  else if (severityRank(finding.severity) > severityRank(existing.severity)) byFingerprint.set(finding.fingerprint, { ...finding, occurrences: [...existing.occurrences, ...finding.occurrences] });
  else existing.occurrences.push(...finding.occurrences);
}

/** The findings of each file in order: cached ones with their paths in this tree, the others judged now and kept. */
async function judgedPerFile(ctx: AnalysisContext, facet: string, nodes: readonly FileNode[], judge: (node: FileNode) => Promise<EngineFinding[]>): Promise<EngineFinding[]> {
  const cache = await facetLookup<EngineFinding[]>(ctx.fileCache, facet, '', nodes);
  const findings: EngineFinding[] = [];
  for (const node of nodes) {
    ctx.signal.throwIfAborted();
    const cached = findingsAt(cache.get(node), node.path);
    const found = cached ?? (await judge(node));
    if (!cached) cache.put(node, found);
    findings.push(...found);
  }
  return findings;
}

export function createWeaknessesAnalyzer(rules: readonly WeaknessRule[] = weaknessRules): Analyzer {
  return {
    id: 'weaknesses',
    phase: 'known weaknesses',
    async run(ctx: AnalysisContext): Promise<void> {
      // Binaries are told by a NUL in their head without reading them whole; small texts (accounts, startup
      // files, read by several rules) are kept, larger ones read again when asked.
      const texts = new Map<string, string | undefined>();
      const text = async (node: FileNode, maxBytes = DEFAULT_TEXT_LIMIT): Promise<string | undefined> => {
        if (node.kind !== 'file' || node.size > maxBytes) return undefined;
        if (texts.has(node.path)) return texts.get(node.path);
        const head = await ctx.index.head(node, BINARY_PROBE);
        const value = head.includes(0) ? undefined : node.size <= head.length ? head.toString('utf8') : (await ctx.index.read(node)).toString('utf8');
        if (value === undefined || node.size <= CACHE_LIMIT) texts.set(node.path, value);
        return value;
      };
      const byFingerprint = new Map<string, EngineFinding>();
      for (const [i, rule] of rules.entries()) {
        ctx.signal.throwIfAborted();
        const wctx: WeaknessContext = {
          index: ctx.index,
          signal: ctx.signal,
          text,
          note: (p) => ctx.problems.push({ ...p, source: `weakness/${rule.id}` }),
          perFile: (nodes, judge) => judgedPerFile(ctx, `weakness/${rule.id}`, nodes, judge),
        };
        try {
          for (const finding of await rule.run(wctx)) merge(byFingerprint, finding);
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

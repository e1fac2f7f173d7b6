// CI gating: which findings of an image fail the release. Pure over the findings rows, so the rule is tested
// without a server. Exit codes: 0 clean, 1 error, 2 a gate failed, 3 the analysis is incomplete
// (--fail-on-incomplete); a failed gate wins over an incomplete analysis.
export const EXIT = { clean: 0, error: 1, gateFailed: 2, incomplete: 3 } as const;

export const EXIT_CODES_HELP = `
Exit codes:
  0  clean: no gate failed
  1  error (server unreachable, bad credentials, missing file, scan failed, ...)
  2  a gate failed (--fail-on, --fail-on-new, --fail-on-kev); the failing findings are listed on standard error
  3  the analysis is incomplete (--fail-on-incomplete)`;

export const GATE_SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export type GateSeverity = (typeof GATE_SEVERITIES)[number];
const RANK: Record<string, number> = { critical: 4, high: 3, medium: 2, low: 1, informational: 0 };

export interface GateOptions {
  failOn?: string;
  failOnNew?: boolean;
  failOnKev?: boolean;
}

export interface GateRow {
  id: string;
  pname: string;
  name: string;
  severity: string;
  isKev: boolean;
  issueStatus: string;
  componentName?: string;
  componentVersion?: string;
}

export function checkGateOptions(options: GateOptions): void {
  if (options.failOn !== undefined && !(GATE_SEVERITIES as readonly string[]).includes(options.failOn)) {
    throw new Error(`--fail-on must be one of ${GATE_SEVERITIES.join(', ')}`);
  }
}

export const gatesAsked = (o: GateOptions): boolean => Boolean(o.failOn || o.failOnNew || o.failOnKev);

/**
 * The findings that fail the gates. `rows` are the image's findings, or only the new ones when --fail-on-new.
 * Rejected findings (not affected, recorded by the team) never fail a gate. --fail-on-new alone fails on any
 * new finding; with --fail-on or --fail-on-kev it narrows them to new findings.
 */
export function failingFindings(rows: GateRow[], options: GateOptions): GateRow[] {
  const open = rows.filter((r) => r.issueStatus !== 'rejected');
  if (!options.failOn && !options.failOnKev) return options.failOnNew ? open : [];
  const threshold = options.failOn ? RANK[options.failOn]! : Infinity;
  return open.filter((r) => (RANK[r.severity] ?? 0) >= threshold || (options.failOnKev && r.isKev));
}

/** "gate failed: 3 findings (2 high, 1 KEV) …" with one finding a line (at most 20). */
export function gateSummary(failing: GateRow[], options: GateOptions): string {
  const counts = new Map<string, number>();
  for (const r of failing) counts.set(r.severity, (counts.get(r.severity) ?? 0) + 1);
  const bySeverity = [...counts].sort(([a], [b]) => (RANK[b] ?? 0) - (RANK[a] ?? 0)).map(([s, n]) => `${n} ${s}`);
  const kev = failing.filter((r) => r.isKev).length;
  const rule = [options.failOn ? `--fail-on ${options.failOn}` : '', options.failOnKev ? '--fail-on-kev' : '', options.failOnNew ? '--fail-on-new' : ''].filter(Boolean).join(' ');
  const lines = [`firmscope: gate failed (${rule}): ${failing.length} finding${failing.length === 1 ? '' : 's'} (${bySeverity.join(', ')}${kev ? `, ${kev} in KEV` : ''})`];
  for (const r of failing.slice(0, 20)) {
    const component = r.componentName ? ` in ${r.componentName}${r.componentVersion ? ` ${r.componentVersion}` : ''}` : '';
    lines.push(`  ${r.severity.padEnd(8)} ${r.pname}${component}${r.isKev ? ' [KEV]' : ''}`);
  }
  if (failing.length > 20) lines.push(`  … and ${failing.length - 20} more`);
  return lines.join('\n') + '\n';
}

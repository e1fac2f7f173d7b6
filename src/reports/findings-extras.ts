// The parts of the findings PDF and HTML reports that are not findings: what was analysed (coverage, problems),
// the components with their finding counts, the cryptographic material and the binaries' hardening.
import { basename } from 'node:path';
import { SEVERITIES, type BinaryInfo, type Severity } from '../engine/types.js';
import { formatName } from '../engine/unpack/format-names.js';
import { pqcModel } from './pqc-model.js';
import { COMPONENT_KIND_LABEL, devicePath, devicePaths, humanDate, versionLabel } from './report-labels.js';
import type { ReportFinding, ReportInput } from './report.js';

export interface FindingsExtras {
  coverage: {
    complete?: boolean;
    files: number;
    recognised?: number;
    components: number;
    binaries: number;
    /** Each recognised format by its human name (formatName), with how many parts of it were unpacked. */
    formats: Array<[string, number]>;
    problems: { error: number; warning: number; info: number };
    problemRows: Array<{ level: 'error' | 'warning'; where: string; message: string }>;
    problemsNotShown: number;
  };
  components: Array<{ name: string; version?: string; type: string; licenses: string[]; findings: Partial<Record<Severity, number>> }>;
  crypto: {
    score: number;
    algorithms: number;
    privateKeys: Array<{ name: string; protection: string; files: string }>;
    certificates: Array<{ name: string; key: string; expires: string; expired: boolean; state: string; file: string }>;
    weak: Array<{ name: string; why: string; usedBy: string }>;
  };
  binaries?: {
    count: number;
    protections: Array<{ label: string; purpose: string; have: number; of: number }>;
    exposed: Array<{ path: string; missing: string[]; unsafeUses: number }>;
  };
  ruleSet?: string;
}

const PROBLEM_ROWS = 40;

function missingProtections(b: BinaryInfo): string[] {
  if (b.format === 'elf') {
    const h = b.hardening;
    return [!h.nx && 'NX', !h.pie && 'PIE', h.relro !== 'full' && 'full RELRO', !h.canary && 'stack canary', !h.fortify && 'FORTIFY'].filter((x): x is string => !!x);
  }
  const h = b.hardening;
  return [!h.nx && 'DEP', !h.aslr && 'ASLR', !h.cfg && 'CFG'].filter((x): x is string => !!x);
}

function binariesOf(binaries: BinaryInfo[] | undefined): FindingsExtras['binaries'] {
  if (!binaries) return undefined;
  const elf = binaries.filter((b) => b.format === 'elf' && b.type !== 'kernel') as Array<Extract<BinaryInfo, { format: 'elf' }>>;
  const pe = binaries.filter((b) => b.format !== 'elf') as Array<Extract<BinaryInfo, { format: 'pe' | 'te' }>>;
  const share = <T>(list: T[], has: (b: T) => boolean) => list.filter(has).length;
  const protections = [
    ...(elf.length ? [
      { label: 'Non-executable stack (NX)', purpose: 'Data on the stack cannot run as code', have: share(elf, (b) => b.hardening.nx), of: elf.length },
      { label: 'Position-independent (PIE)', purpose: 'Code loads at a random address', have: share(elf, (b) => b.hardening.pie), of: elf.length },
      { label: 'Full RELRO', purpose: 'Function pointers are read-only after start', have: share(elf, (b) => b.hardening.relro === 'full'), of: elf.length },
      { label: 'Stack canary', purpose: 'Stack overflows are detected', have: share(elf, (b) => b.hardening.canary), of: elf.length },
      { label: 'FORTIFY_SOURCE', purpose: 'Unsafe string calls are checked', have: share(elf, (b) => b.hardening.fortify), of: elf.length },
    ] : []),
    ...(pe.length ? [
      { label: 'DEP (NX), Windows/UEFI', purpose: 'Data cannot run as code', have: share(pe, (b) => b.hardening.nx), of: pe.length },
      { label: 'ASLR, Windows/UEFI', purpose: 'Code loads at a random address', have: share(pe, (b) => b.hardening.aslr), of: pe.length },
      { label: 'Control Flow Guard', purpose: 'Indirect calls are checked', have: share(pe, (b) => b.hardening.cfg), of: pe.length },
    ] : []),
  ];
  const exposed = binaries.filter((b) => b.networkFacing && b.type !== 'kernel').map((b) => ({ path: devicePath(b.path), missing: missingProtections(b), unsafeUses: b.unsafeUses }))
    .filter((e) => e.missing.length).sort((a, b) => b.missing.length - a.missing.length || b.unsafeUses - a.unsafeUses).slice(0, 25);
  return { count: binaries.length, protections, exposed };
}

export function findingsExtras(input: ReportInput, findings: ReportFinding[]): FindingsExtras {
  const { result } = input;
  const summary = result.summary;
  const problems = result.problems.filter((p) => p.level === 'error' || p.level === 'warning');
  const ordered = [...problems.filter((p) => p.level === 'error'), ...problems.filter((p) => p.level === 'warning')];
  const byComponent = new Map<string, Partial<Record<Severity, number>>>();
  for (const f of findings) {
    if (!f.component) continue;
    const counts = byComponent.get(f.component.ref) ?? {};
    counts[f.severity] = (counts[f.severity] ?? 0) + 1;
    byComponent.set(f.component.ref, counts);
  }
  const worst = (c: Partial<Record<Severity, number>>) => SEVERITIES.map((s) => c[s] ?? 0);
  const components = result.components.map((c) => ({
    name: c.name, ...(c.version ? { version: versionLabel(c.version) } : {}), type: COMPONENT_KIND_LABEL[c.type] ?? c.type, licenses: c.licenses ?? [], findings: byComponent.get(c.ref) ?? {},
  })).sort((a, b) => {
    const wa = worst(a.findings);
    const wb = worst(b.findings);
    for (let i = 0; i < wa.length; i++) if (wa[i] !== wb[i]) return wb[i]! - wa[i]!;
    return a.name.localeCompare(b.name);
  });
  const pqc = pqcModel(input);
  const detailsOf = (d: Record<string, unknown>) => d as { subject?: string; key?: { keyType: string; bits?: number; curve?: string }; notAfter?: string; expired?: boolean; expiringSoon?: boolean; encrypted?: boolean; weakPassword?: string };
  const cn = (name: string): string => /(?:^|, )CN=([^,]+)/.exec(name)?.[1] ?? name;
  return {
    coverage: {
      ...(summary ? { complete: summary.complete, recognised: summary.coverage } : {}),
      files: summary?.filesExtracted ?? result.stats.filesExtracted,
      components: result.components.length,
      binaries: result.binaries?.length ?? 0,
      formats: Object.entries(summary?.formats ?? result.stats.formats).map(([id, n]): [string, number] => [formatName(id), n]).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
      problems: summary?.problems ?? {
        error: result.problems.filter((p) => p.level === 'error').length, warning: result.problems.filter((p) => p.level === 'warning').length, info: result.problems.filter((p) => p.level === 'info').length,
      },
      problemRows: ordered.slice(0, PROBLEM_ROWS).map((p) => ({ level: p.level as 'error' | 'warning', where: `${p.path ? devicePath(p.path) : 'the image'}${p.offset !== undefined ? ` at offset ${p.offset}` : ''}`, message: devicePaths(p.message) })),
      problemsNotShown: Math.max(0, ordered.length - PROBLEM_ROWS),
    },
    components,
    crypto: {
      score: pqc.summary.score,
      algorithms: pqc.summary.algorithms,
      privateKeys: pqc.keys.filter((k) => k.assetType === 'private-key').map((k) => {
        const d = detailsOf(k.details);
        return { name: k.name, protection: d.encrypted ? (d.weakPassword !== undefined ? `weak password "${d.weakPassword}"` : 'encrypted') : 'none: stored in plain text', files: k.paths.map(devicePath).join(', ') };
      }),
      certificates: pqc.certificates.map((c) => {
        const d = detailsOf(c.details);
        return {
          name: cn(d.subject ?? c.name), key: d.key ? `${d.key.keyType} ${d.key.bits ?? d.key.curve ?? ''}`.trim() : '-', expires: d.notAfter ? humanDate(d.notAfter, true) : '-',
          expired: !!d.expired, state: d.expiringSoon ? 'Expiring soon' : 'Valid', file: basename(c.paths[0] ?? ''),
        };
      }),
      weak: pqc.rows.filter((r) => r.quantumClass === 'broken').map((r) => ({ name: r.name, why: 'Broken by classical attacks today', usedBy: versionLabel(r.component) })),
    },
    ...(result.binaries ? { binaries: binariesOf(result.binaries) } : {}),
    ...(summary?.ruleSet ? { ruleSet: summary.ruleSet } : {}),
  };
}

// Kernel CVE triage: whether a kernel CVE's affected code is built into the image's kernel. The kernel CNA's
// records list the affected source files (programFiles) and now and then the functions (programRoutines);
// tables/kernel-file-options.json.gz (generated from a Debian linux-source tree by scripts/kernel-file-options.ts)
// gives the configuration options kbuild needs to compile each file. The evidence (kernel-evidence.ts) is the
// image's kernel configuration, its symbols (System.map, vmlinux .symtab, kallsyms), its shipped and built-in
// modules, and its architecture. Per affected file, in this order:
//   other-architecture      arch/<x>/ code of another architecture than the kernel's            → not built
//   symbol-present          one of the record's routines is a symbol of the kernel or a module  → built
//   file-symbol-present     a function only this file defines (tables/kernel-file-functions.json.gz) is a symbol
//                           of the kernel or a module: the mapping through function names, which also decides
//                           where the kbuild table cannot (no configuration, a file it does not know) → built
//   config-option-off       the table's options for the file: one is off                        → not built
//   module-shipped/-builtin the options are on, one is =m, and the module (foo.c → foo.ko, or its composite
//                           module) ships in lib/modules or is built in                         → built
//   module-not-shipped      the options are on, one is =m, and no such module ships              → unknown
//   routine-under-option-off the file is built, but each of the record's routines is defined under a
//                           preprocessor condition on options (#ifdef CONFIG_X, kernel-function-guards table)
//                           that this configuration does not satisfy: the vulnerable code sits under an option
//                           that is off                                                         → unknown
//   routine-not-in-symbols  the file is built but none of the record's routines is in the symbols
//                           read: the vulnerable code may sit under an option that is off (or be inlined)
//                                                                                               → unknown
//   config-built            the options are all =y (or the file is always built)                → built
//   without a configuration: module-shipped/-builtin as above, else no-evidence                 → unknown
//   file-not-in-table       the table does not know the file                                    → unknown
// The finding's verdict: applicable when one file is built (partly built is applicable), not applicable when every
// file is not built (its rule: other-architecture when all are, else config-option-off), unknown otherwise. Each
// not-applicable finding carries the rule that removed it; the scan counts them per rule.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { Applicability, EngineFinding } from '../types.js';
import { CONFIDENCE_SCORES, confidenceOf } from './confidence.js';
import { evaluateCondition } from './kernel-conditions.js';
import { configOf, type KernelEvidence } from './kernel-evidence.js';
import { moduleNamesOf } from './kernel-modules.js';

const TABLE_FILE = fileURLToPath(new URL('../../../tables/kernel-file-options.json.gz', import.meta.url));
let table: Map<string, string[]> | undefined;

/** Source file → the options it needs (empty: built on every configuration); read once. */
export function kernelFileOptions(): Map<string, string[]> {
  table ??= new Map(Object.entries((JSON.parse(gunzipSync(readFileSync(TABLE_FILE)).toString('utf8')) as { files: Record<string, string[]> }).files));
  return table;
}

const NAMES_FILE = fileURLToPath(new URL('../../../tables/kernel-file-functions.json.gz', import.meta.url));
const GUARDS_FILE = fileURLToPath(new URL('../../../tables/kernel-function-guards.json.gz', import.meta.url));
/** Per source file: functions only it defines (read when there are symbols), and the functions it defines under CONFIG_ conditions (read for records that name routines). */
export interface KernelFileFunctions { names: Map<string, string[]>; guards: Map<string, Record<string, string>> }
let names: Map<string, string[]> | undefined;
let guards: Map<string, Record<string, string>> | undefined;
const readTable = <T>(file: string, key: string) => new Map(Object.entries((JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as Record<string, Record<string, T>>)[key]!));

/** The function-name tables (scripts/kernel-file-functions.ts), each read once on first use. */
export function kernelFileFunctions(): KernelFileFunctions {
  return {
    get names() { return (names ??= readTable<string[]>(NAMES_FILE, 'names')); },
    get guards() { return (guards ??= readTable<Record<string, string>>(GUARDS_FILE, 'guards')); },
  };
}

/** arch/<dir> → the option a kernel built for it has on. */
const ARCH_OPTIONS: Record<string, string> = {
  arm: 'ARM', arm64: 'ARM64', mips: 'MIPS', x86: 'X86', powerpc: 'PPC', riscv: 'RISCV', s390: 'S390', sparc: 'SPARC', loongarch: 'LOONGARCH',
  m68k: 'M68K', sh: 'SUPERH', xtensa: 'XTENSA', arc: 'ARC', csky: 'CSKY', microblaze: 'MICROBLAZE', nios2: 'NIOS2', openrisc: 'OPENRISC', parisc: 'PARISC', alpha: 'ALPHA', ia64: 'IA64',
};

export type KernelRule = 'symbol-present' | 'file-symbol-present' | 'module-shipped' | 'module-builtin' | 'config-built'
  | 'config-option-off' | 'other-architecture'
  | 'module-not-shipped' | 'routine-under-option-off' | 'routine-not-in-symbols' | 'file-not-in-table' | 'no-evidence' | 'no-files';

interface FileVerdict { built?: boolean; rule: KernelRule; reason: string }

/** The evidence in the form the verdicts look it up. */
interface Prepared {
  config?: Map<string, 'y' | 'm' | 'n'>;
  configSource?: string;
  symbols: Map<string, string>;
  shipped: Map<string, string>;
  builtin: Set<string>;
  ordered: Set<string>;
  arch?: string;
  sources: string[];
  /**
   * Verdicts of files named without routines, by file: a kernel's findings name the same files over and over (the
   * verdict depends only on the file and this evidence), and building each reason again costs a scan thousands of
   * strings.
   */
  files: Map<string, FileVerdict>;
}

const prepared = new WeakMap<KernelEvidence, Prepared>();

/** Prepared once per evidence value (a scan triages thousands of findings on one). */
function prepare(evidence: KernelEvidence): Prepared {
  let ev = prepared.get(evidence);
  if (!ev) prepared.set(evidence, (ev = prepareNow(evidence)));
  return ev;
}

function prepareNow(evidence: KernelEvidence): Prepared {
  const found = configOf(evidence);
  const symbols = new Map<string, string>();
  for (const name of evidence.modules?.symbols ?? []) symbols.set(name, 'the shipped modules');
  for (const name of evidence.symbols?.names ?? []) symbols.set(name, evidence.symbols!.source);
  const sources = [
    ...(found ? [`configuration: ${found.source}`] : []),
    ...(evidence.symbols ? [`symbols: ${evidence.symbols.source} (${evidence.symbols.names.length})`] : []),
    ...(evidence.modules ? [`modules: ${evidence.modules.source} (${evidence.modules.shipped.length} shipped, ${evidence.modules.builtin.length} built in)`] : []),
    ...(evidence.arch && !found ? [`architecture: ${evidence.arch.name} (${evidence.arch.source})`] : []),
  ];
  return {
    ...(found ? { config: found.config, configSource: found.source } : {}),
    symbols,
    shipped: new Map((evidence.modules?.shipped ?? []).map((m) => [m.name, m.path])),
    builtin: new Set(evidence.modules?.builtin ?? []),
    ordered: new Set(evidence.modules?.ordered ?? []),
    ...(evidence.arch ? { arch: evidence.arch.name } : {}),
    sources,
    files: new Map(),
  };
}

/** ' (the build made module x.ko: modules.order)' when a module the file may be compiled into is one the build made. */
function orderedNote(file: string, ev: Prepared): string {
  const name = moduleNamesOf(file).find((n) => ev.ordered.has(n));
  return name ? ` (the build made it as module ${name}.ko, modules.order)` : '';
}

/** The shipped or built-in module the file may be compiled into. */
function moduleOf(file: string, ev: Prepared): FileVerdict | undefined {
  for (const name of moduleNamesOf(file)) {
    const path = ev.shipped.get(name);
    if (path) return { built: true, rule: 'module-shipped', reason: `${file}: module ${name}.ko ships (${path})` };
    if (ev.builtin.has(name)) return { built: true, rule: 'module-builtin', reason: `${file}: module ${name} is built into the kernel (modules.builtin)` };
  }
  return undefined;
}

/** A function only this file defines that the kernel's or a module's symbols hold: the file is built. */
function fileSymbolOf(file: string, ev: Prepared): FileVerdict | undefined {
  if (ev.symbols.size === 0) return undefined; // (the table is read only when there are symbols to look in)
  const name = kernelFileFunctions().names.get(file)?.find((n) => ev.symbols.has(n));
  return name ? { built: true, rule: 'file-symbol-present', reason: `${file}: ${name}, defined only in this file, is a symbol of ${ev.symbols.get(name)}` } : undefined;
}

/** ' (none of its functions a, b is in the symbols read)' when symbols were read and the table names the file's. */
function absentNote(file: string, ev: Prepared): string {
  if (ev.symbols.size === 0) return '';
  const names = kernelFileFunctions().names.get(file);
  return names ? ` (none of its functions ${names.join(', ')} is in the ${ev.symbols.size} symbols read)` : '';
}

/**
 * A built file whose vulnerable code may not be: each of the record's routines is defined under a condition on
 * options that the configuration does not satisfy (routine-under-option-off), or none is in the symbols read
 * (routine-not-in-symbols, for files found built by the configuration or by another function's symbol).
 */
function narrowed(built: FileVerdict, file: string, routines: string[], ev: Prepared, missing: string | undefined): FileVerdict {
  if (routines.length === 0) return built;
  const guarded = ev.config ? kernelFileFunctions().guards.get(file) : undefined;
  if (guarded && routines.every((r) => guarded[r] !== undefined && evaluateCondition(guarded[r]!, ev.config!) === false)) {
    const off = routines.map((r) => `${r} (#if ${guarded[r]})`).join(', ');
    return { rule: 'routine-under-option-off', reason: `${built.reason}, but its vulnerable code sits under an option that is off: ${off}` };
  }
  if (missing && (built.rule === 'config-built' || built.rule === 'file-symbol-present')) return { rule: 'routine-not-in-symbols', reason: `${built.reason}, but ${missing}` };
  return built;
}

/** Whether one source file is built: the rule that decided, and why. */
function fileVerdict(file: string, routines: string[], ev: Prepared, options: Map<string, string[]>): FileVerdict {
  const arch = /^arch\/([^/]+)\//.exec(file)?.[1];
  if (arch && ARCH_OPTIONS[arch]) {
    const other = ev.config ? ev.config.get(ARCH_OPTIONS[arch]!) !== 'y' : ev.arch !== undefined && ev.arch !== arch;
    if (other) return { built: false, rule: 'other-architecture', reason: `${file}: code of arch/${arch}, the kernel is built for another architecture` };
  }
  const symbol = routines.find((r) => ev.symbols.has(r));
  if (symbol) return { built: true, rule: 'symbol-present', reason: `${file}: ${symbol} is a symbol of ${ev.symbols.get(symbol)}` };
  const missing = routines.length > 0 && ev.symbols.size > 0
    ? `none of its vulnerable routines (${routines.join(', ')}) is in the symbols read: the code may sit under an option that is off, or be inlined` : undefined;
  const bySymbol = fileSymbolOf(file, ev);
  if (!ev.config) {
    return moduleOf(file, ev) ?? (bySymbol && narrowed(bySymbol, file, routines, ev, missing)) ?? { rule: 'no-evidence', reason: `${file}: no kernel configuration, and no shipped module or symbol shows it built${absentNote(file, ev)}${orderedNote(file, ev)}${missing ? ` (${missing})` : ''}` };
  }
  // the symbols show the file built even where the table's options say otherwise (another kernel version's Makefiles)
  if (bySymbol) return narrowed(bySymbol, file, routines, ev, missing);
  const needed = options.get(file);
  if (!needed) return moduleOf(file, ev) ?? { rule: 'file-not-in-table', reason: `${file}: not in the kbuild table${absentNote(file, ev)}` };
  const config = ev.config;
  const off = needed.filter((o) => (config.get(o) ?? 'n') === 'n');
  if (off.length > 0) return { built: false, rule: 'config-option-off', reason: `${file}: CONFIG_${off[0]} is not set` };
  const settings = needed.map((o) => `CONFIG_${o}=${config.get(o)}`).join(', ');
  if (needed.some((o) => config.get(o) === 'm')) {
    const module = moduleOf(file, ev);
    if (module) return narrowed({ ...module, reason: `${module.reason}, built as a module (${settings})` }, file, routines, ev, missing);
    return { rule: 'module-not-shipped', reason: `${file}: built as a module (${settings}), which the image does not ship${ev.shipped.size === 0 ? ' (no modules in the image)' : ''}${orderedNote(file, ev)}` };
  }
  return narrowed({ built: true, rule: 'config-built', reason: needed.length === 0 ? `${file}: always built` : `${file}: built (${settings})` }, file, routines, ev, missing);
}

/** The verdict for one kernel CVE from its affected files and routines, against the image's kernel evidence. */
export function kernelApplicability(programFiles: string[], evidence: KernelEvidence, routines: string[] = [], options = kernelFileOptions()): Applicability {
  const ev = prepare(evidence);
  if (programFiles.length === 0) {
    const symbol = routines.find((r) => ev.symbols.has(r));
    if (symbol) return { verdict: 'applicable', rule: 'symbol-present', reason: `${symbol} is a symbol of ${ev.symbols.get(symbol)}`, evidence: ev.sources };
    return { verdict: 'unknown', rule: 'no-files', reason: 'the record names no affected source files', evidence: ev.sources };
  }
  if (ev.sources.length === 0) {
    return { verdict: 'unknown', rule: 'no-evidence', reason: 'no kernel configuration (no /boot/config-*, config.gz or IKCONFIG), symbols or modules in the image', evidence: [] };
  }
  const verdicts = programFiles.map((f) => {
    // verdicts are read only; the cache holds those of the shipped table (a caller's own table is not cached)
    if (routines.length > 0 || options !== kernelFileOptions()) return fileVerdict(f, routines, ev, options);
    let verdict = ev.files.get(f);
    if (!verdict) ev.files.set(f, (verdict = fileVerdict(f, routines, ev, options)));
    return verdict;
  });
  const lines = [...ev.sources, ...verdicts.map((v) => v.reason)];
  const built = verdicts.find((v) => v.built === true);
  if (built) return { verdict: 'applicable', rule: built.rule, reason: built.reason, evidence: lines };
  if (verdicts.every((v) => v.built === false)) {
    const rule = verdicts.every((v) => v.rule === 'other-architecture') ? 'other-architecture' : 'config-option-off';
    return { verdict: 'not-applicable', rule, reason: verdicts.map((v) => v.reason).join('; '), evidence: lines };
  }
  const open = verdicts.find((v) => v.built === undefined)!;
  return { verdict: 'unknown', rule: open.rule, reason: open.reason, evidence: lines };
}

const isKernel = (cpe: string | undefined) => cpe !== undefined && /^cpe:2\.3:[o*]:linux:linux_kernel:/.test(cpe);

/** How the triage of a scan's kernel findings came out: per verdict, and the not-applicable ones per rule. */
export interface KernelTriageSummary {
  applicable: number;
  'not-applicable': number;
  unknown: number;
  /** Findings each rule removed (found not applicable), by rule. */
  removedByRule: Record<string, number>;
}

/**
 * Triage of the kernel findings of a scan: each gets its applicability and the matching confidence label; returns
 * how many each verdict got and how many each rule removed (the scan reports them).
 */
export function triageKernelFindings(findings: EngineFinding[], evidence: KernelEvidence): KernelTriageSummary {
  const summary: KernelTriageSummary = { applicable: 0, 'not-applicable': 0, unknown: 0, removedByRule: {} };
  for (const finding of findings) {
    if (finding.findingType !== 'dependencyVulnerability' || !isKernel(finding.component?.cpe)) continue;
    const files = (finding.match?.programFiles ?? []) as string[];
    const routines = (finding.match?.programRoutines ?? []) as string[];
    const applicability = kernelApplicability(files, evidence, routines);
    finding.applicability = applicability;
    summary[applicability.verdict]++;
    if (applicability.verdict === 'not-applicable') summary.removedByRule[applicability.rule!] = (summary.removedByRule[applicability.rule!] ?? 0) + 1;
    const label = applicability.verdict === 'applicable' ? 'kernel-code-built' : applicability.verdict === 'not-applicable' ? 'kernel-code-not-built' : 'kernel-code-unknown';
    // an unknown verdict keeps the match's own score, up to the label's
    const score = label === 'kernel-code-unknown' ? Math.min(finding.matchConfidence?.score ?? CONFIDENCE_SCORES[label], CONFIDENCE_SCORES[label]) : CONFIDENCE_SCORES[label];
    finding.matchConfidence = confidenceOf(label, score);
  }
  return summary;
}

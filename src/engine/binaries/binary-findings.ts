// Findings from the binaries: one per binary that uses unsafe functions (CWE-676) and one per binary missing
// basic exploit mitigations (CWE-693): ELF without NX, stack canary or RELRO; Windows PE without DEP or ASLR.
// Severity is low, medium when the binary faces the network (network-facing.ts). Fingerprints hash the rule
// and the binary's path inside its filesystem, never counts or offsets, so the finding keeps its identity
// when call sites change between releases.
import { cweFinding } from '../cwe-finding.js';
import type { BinaryInfo, BinaryUnsafeFunction, EngineFinding } from '../types.js';

const MAX_CALLERS_LISTED = 5;

/** The first callers with their call sites ('copy_name ×2', ..., 'N more'). */
function listCallers(f: BinaryUnsafeFunction): string[] {
  const callers = f.callers.slice(0, MAX_CALLERS_LISTED).map((c) => `${c.function} ×${c.callSites}`);
  if (f.callers.length > MAX_CALLERS_LISTED) callers.push(`${f.callers.length - MAX_CALLERS_LISTED} more`);
  return callers;
}

function describeUse(f: BinaryUnsafeFunction): string {
  const how = f.linkage === 'imported' ? 'imported' : 'linked in';
  if (f.callSites === undefined) return `${f.symbol} (${how})`;
  const callers = listCallers(f);
  return `${f.symbol} (${how}, ${f.callSites} call site${f.callSites === 1 ? '' : 's'}${callers.length ? `: ${callers.join(', ')}` : ''})`;
}

/** `strcpy ×3 in copy_name ×2, main ×1`: the evidence names the callers where symbols or debug files give them. */
function evidenceOf(f: BinaryUnsafeFunction): string {
  if (f.callSites === undefined) return f.symbol;
  const callers = listCallers(f);
  return `${f.symbol} ×${f.callSites}${callers.length ? ` in ${callers.join(', ')}` : ''}`;
}

function unsafeFunctionFinding(binary: BinaryInfo, fsPath: string): EngineFinding {
  const names = [...new Set(binary.unsafeFunctions.map((f) => f.name))];
  const counted = binary.callSitesDecoded ? `${binary.unsafeUses} call site${binary.unsafeUses === 1 ? '' : 's'}` : `${binary.unsafeUses} function${binary.unsafeUses === 1 ? '' : 's'}, call sites not decoded on ${binary.arch}`;
  return cweFinding('unsafe-function-use', fsPath, {
    name: `Unsafe functions in ${fsPath}: ${names.join(', ')}`,
    title: `Use of potentially dangerous functions (${counted})`,
    description: `${fsPath}${binary.networkFacing ? ', a network-facing binary,' : ''} uses functions that copy or format without bounds (strcpy, strcat, sprintf, vsprintf, gets, scanf %s) or run commands (system, popen, exec*): ${binary.unsafeFunctions.map(describeUse).join('; ')}.`,
    severity: binary.networkFacing ? 'medium' : 'low',
    cwe: 'CWE-676',
    recommendedAction: 'Replace unbounded copies and formatting with bounded ones (snprintf, strlcpy/strncpy with explicit termination, fgets) and command execution with fork/exec of fixed argument vectors; review each call site for attacker-controlled input.',
    occurrences: [{ path: binary.path, evidence: binary.unsafeFunctions.map(evidenceOf).join('; ') }],
  });
}

function missingMitigations(binary: BinaryInfo): string[] {
  if (binary.format === 'elf') {
    const h = binary.hardening;
    return [!h.nx && 'NX (executable stack)', !h.canary && 'stack canary', h.relro === 'none' && 'RELRO'].filter((m): m is string => !!m);
  }
  const h = binary.hardening;
  return [!h.nx && 'DEP (NX_COMPAT)', !h.aslr && 'ASLR (DYNAMIC_BASE)'].filter((m): m is string => !!m);
}

function mitigationFinding(binary: BinaryInfo, fsPath: string, missing: string[]): EngineFinding {
  return cweFinding('missing-binary-hardening', fsPath, {
    name: `Missing exploit mitigations in ${fsPath}: ${missing.join(', ')}`,
    title: 'Binary built without basic exploit mitigations',
    description: `${fsPath}${binary.networkFacing ? ', a network-facing binary,' : ''} lacks ${missing.join(', ')}, so memory corruption bugs in it are easier to exploit.${binary.format === 'elf' && binary.hardening.stripped ? ' (The binary is stripped: a stack canary is detected from its symbols, so one may be present but unseen.)' : ''}`,
    severity: binary.networkFacing ? 'medium' : 'low',
    cwe: 'CWE-693',
    recommendedAction: binary.format === 'elf' ? 'Build with -fstack-protector-strong, -Wl,-z,noexecstack and -Wl,-z,relro,-z,now (and -fPIE -pie).' : 'Link with /NXCOMPAT and /DYNAMICBASE (and /HIGHENTROPYVA, /GUARD:CF).',
    occurrences: [{ path: binary.path, evidence: `missing: ${missing.join(', ')}` }],
  });
}

/** The findings of one binary; `mitigationsApply` is false for images held to other rules (UEFI, TE); kernels too. */
export function binaryFindings(binary: BinaryInfo, fsPath: string, mitigationsApply: boolean): EngineFinding[] {
  const out: EngineFinding[] = [];
  if (binary.unsafeFunctions.length) out.push(unsafeFunctionFinding(binary, fsPath));
  // A kernel's stack, canary and relocation protections are configured differently (and checked elsewhere).
  const missing = mitigationsApply && binary.type !== 'kernel' ? missingMitigations(binary) : [];
  if (missing.length) out.push(mitigationFinding(binary, fsPath, missing));
  return out;
}

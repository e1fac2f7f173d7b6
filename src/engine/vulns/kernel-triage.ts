// Kernel CVE triage: whether a kernel CVE's affected code is built into the image's kernel. The kernel CNA's
// records list the affected source files (programFiles); tables/kernel-file-options.json.gz (generated from a
// Debian linux-source tree by scripts/kernel-file-options.ts) gives the configuration options kbuild needs to
// compile each file; the image's kernel configuration (a /boot/config-*, a .config, /proc/config.gz or the
// IKCONFIG blob embedded in the kernel) says which are on. The verdict:
//   applicable      one affected file is built (its options are all =y or =m)
//   not-applicable  every affected file is known and not built (an option off, or another architecture's code)
//   unknown         no configuration, no affected files in the record, or a file the table does not know
// Symbols (kallsyms, System.map) are not read yet: without a configuration the verdict is unknown.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { FileIndex } from '../file-index.js';
import type { Applicability, Component, EngineFinding, FileNode } from '../types.js';

export type KernelConfig = Map<string, 'y' | 'm' | 'n'>;

const TABLE_FILE = fileURLToPath(new URL('../../../tables/kernel-file-options.json.gz', import.meta.url));
let table: Map<string, string[]> | undefined;

/** Source file → the options it needs (empty: built on every configuration); read once. */
export function kernelFileOptions(): Map<string, string[]> {
  table ??= new Map(Object.entries((JSON.parse(gunzipSync(readFileSync(TABLE_FILE)).toString('utf8')) as { files: Record<string, string[]> }).files));
  return table;
}

/** A kernel .config: CONFIG_X=y|m (other values count as on), '# CONFIG_X is not set'. */
export function parseKernelConfig(text: string): KernelConfig {
  const config: KernelConfig = new Map();
  for (const line of text.split('\n')) {
    const on = /^CONFIG_([A-Za-z0-9_]+)=(.*)$/.exec(line);
    if (on) config.set(on[1]!, on[2] === 'm' ? 'm' : on[2] === 'n' ? 'n' : 'y');
    const off = /^# CONFIG_([A-Za-z0-9_]+) is not set/.exec(line);
    if (off) config.set(off[1]!, 'n');
  }
  return config;
}

const IKCFG_START = Buffer.from('IKCFG_ST');
/** The largest kernel image searched for an embedded configuration. */
const MAX_KERNEL_BYTES = 64 * 1024 * 1024;

/** The configuration embedded by CONFIG_IKCONFIG: gzip data between IKCFG_ST and IKCFG_ED. */
export function embeddedConfig(kernel: Buffer): string | undefined {
  const at = kernel.indexOf(IKCFG_START);
  if (at < 0) return undefined;
  try {
    return gunzipSync(kernel.subarray(at + IKCFG_START.length, kernel.indexOf('IKCFG_ED', at) > 0 ? kernel.indexOf('IKCFG_ED', at) : undefined)).toString('utf8');
  } catch {
    return undefined;
  }
}

/** The kernel's configuration found in the image, with where it came from. */
export async function findKernelConfig(index: FileIndex, kernels: Component[]): Promise<{ config: KernelConfig; source: string } | undefined> {
  for (const node of index.glob('**/boot/config-*', '**/.config', '**/proc/config')) {
    if (node.size > 4 * 1024 * 1024) continue;
    const config = parseKernelConfig((await index.read(node)).toString('utf8'));
    if (config.size > 0) return { config, source: node.path };
  }
  for (const node of index.glob('**/config.gz', '**/proc/config.gz')) {
    try {
      const config = parseKernelConfig(gunzipSync(await index.read(node)).toString('utf8'));
      if (config.size > 0) return { config, source: node.path };
    } catch { /* not gzip */ }
  }
  const candidates = new Map<string, FileNode>();
  for (const path of kernels.flatMap((k) => k.paths)) {
    const node = index.get(path);
    if (node) candidates.set(node.path, node);
  }
  for (const node of index.glob('**/vmlinux*', '**/zImage*', '**/bzImage*', '**/Image', '**/uImage*')) candidates.set(node.path, node);
  for (const node of candidates.values()) {
    if (node.kind !== 'file' || node.size > MAX_KERNEL_BYTES) continue;
    const text = embeddedConfig(await index.read(node));
    if (text) return { config: parseKernelConfig(text), source: `${node.path} (IKCONFIG)` };
  }
  return undefined;
}

/** arch/<dir> → the option a kernel built for it has on. */
const ARCH_OPTIONS: Record<string, string> = {
  arm: 'ARM', arm64: 'ARM64', mips: 'MIPS', x86: 'X86', powerpc: 'PPC', riscv: 'RISCV', s390: 'S390', sparc: 'SPARC', loongarch: 'LOONGARCH',
  m68k: 'M68K', sh: 'SUPERH', xtensa: 'XTENSA', arc: 'ARC', csky: 'CSKY', microblaze: 'MICROBLAZE', nios2: 'NIOS2', openrisc: 'OPENRISC', parisc: 'PARISC', alpha: 'ALPHA', ia64: 'IA64',
};

/** Whether one source file is built under the configuration: why, and the deciding options. */
function fileVerdict(file: string, config: KernelConfig, options: Map<string, string[]>): { built?: boolean; reason: string } {
  const arch = /^arch\/([^/]+)\//.exec(file)?.[1];
  if (arch && ARCH_OPTIONS[arch] && config.get(ARCH_OPTIONS[arch]!) !== 'y') return { built: false, reason: `${file}: code of arch/${arch}, the kernel is built for another architecture` };
  const needed = options.get(file);
  if (!needed) return { reason: `${file}: not in the kbuild table` };
  const off = needed.filter((o) => (config.get(o) ?? 'n') === 'n');
  if (off.length > 0) return { built: false, reason: `${file}: CONFIG_${off[0]} is not set` };
  const module = needed.filter((o) => config.get(o) === 'm');
  return { built: true, reason: needed.length === 0 ? `${file}: always built` : `${file}: built (${needed.map((o) => `CONFIG_${o}=${config.get(o)}`).join(', ')})${module.length > 0 ? ' as a module' : ''}` };
}

/** The verdict for one kernel CVE from its affected files. */
export function kernelApplicability(programFiles: string[], found: { config: KernelConfig; source: string } | undefined, options = kernelFileOptions()): Applicability {
  if (programFiles.length === 0) return { verdict: 'unknown', reason: 'the record names no affected source files', evidence: [] };
  if (!found) return { verdict: 'unknown', reason: 'no kernel configuration in the image (no /boot/config-*, config.gz or IKCONFIG)', evidence: [] };
  const verdicts = programFiles.map((f) => fileVerdict(f, found.config, options));
  const evidence = [`configuration: ${found.source}`, ...verdicts.map((v) => v.reason)];
  const built = verdicts.find((v) => v.built === true);
  if (built) return { verdict: 'applicable', reason: built.reason, evidence };
  if (verdicts.every((v) => v.built === false)) return { verdict: 'not-applicable', reason: verdicts.map((v) => v.reason).join('; '), evidence };
  return { verdict: 'unknown', reason: verdicts.find((v) => v.built === undefined)!.reason, evidence };
}

const isKernel = (cpe: string | undefined) => cpe !== undefined && /^cpe:2\.3:[o*]:linux:linux_kernel:/.test(cpe);

/**
 * Triage of the kernel findings of a scan: each gets its applicability and the matching confidence label; returns
 * how many each verdict got (the scan reports them).
 */
export function triageKernelFindings(findings: EngineFinding[], found: { config: KernelConfig; source: string } | undefined): Record<Applicability['verdict'], number> {
  const counts = { applicable: 0, 'not-applicable': 0, unknown: 0 };
  for (const finding of findings) {
    if (finding.findingType !== 'dependencyVulnerability' || !isKernel(finding.component?.cpe)) continue;
    const files = (finding.match?.programFiles ?? []) as string[];
    const applicability = kernelApplicability(files, found);
    finding.applicability = applicability;
    counts[applicability.verdict]++;
    const label = applicability.verdict === 'applicable' ? 'kernel-code-built' : applicability.verdict === 'not-applicable' ? 'kernel-code-not-built' : 'kernel-code-unknown';
    const score = label === 'kernel-code-built' ? 0.95 : label === 'kernel-code-not-built' ? 0.05 : Math.min(finding.matchConfidence?.score ?? 0.6, 0.6);
    finding.matchConfidence = { label, score };
  }
  return counts;
}

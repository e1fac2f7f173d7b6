// What the image tells about its kernel's build, gathered once per scan from the evidence sources (one file each:
// kernel-config.ts, kernel-symbols.ts, kernel-modules.ts) into a plain JSON value. The scan stores it so that
// re-matching triages new kernel findings the same way without the image.
import type { FileIndex } from '../file-index.js';
import type { Component } from '../types.js';
import { findKernelConfig, type KernelConfig } from './kernel-config.js';
import { findKernelModules, type KernelModules } from './kernel-modules.js';
import { findKernelSymbols, type KernelSymbols } from './kernel-symbols.js';

export interface KernelEvidence {
  /** The kernel configuration: its source and every option it sets (y, m, or n for 'is not set'). */
  config?: { source: string; options: Record<string, 'y' | 'm' | 'n'> };
  symbols?: KernelSymbols;
  modules?: KernelModules;
  /** The kernel's architecture directory (arch/<name>) when known without a configuration, with its source. */
  arch?: { name: string; source: string };
}

/** ELF architecture names → the kernel's arch/ directory. */
const ARCH_DIRS: Record<string, string> = {
  mips: 'mips', mipsel: 'mips', mips64: 'mips', mips64el: 'mips', arm: 'arm', aarch64: 'arm64', x86: 'x86', x86_64: 'x86',
  powerpc: 'powerpc', powerpc64: 'powerpc', ppc: 'powerpc', ppc64: 'powerpc', riscv: 'riscv', riscv64: 'riscv', s390: 's390', sparc: 'sparc',
};

export function configOf(evidence: KernelEvidence): { config: KernelConfig; source: string } | undefined {
  return evidence.config ? { config: new Map(Object.entries(evidence.config.options)), source: evidence.config.source } : undefined;
}

/** Everything the image says about its kernel's build (empty when it says nothing). */
export async function gatherKernelEvidence(index: FileIndex, kernels: Component[]): Promise<KernelEvidence> {
  const evidence: KernelEvidence = {};
  const config = await findKernelConfig(index, kernels);
  if (config) evidence.config = { source: config.source, options: Object.fromEntries(config.config) };
  const symbols = await findKernelSymbols(index, kernels);
  if (symbols) evidence.symbols = symbols;
  const modules = await findKernelModules(index);
  if (modules) {
    evidence.modules = modules;
    const arch = modules.architecture ? ARCH_DIRS[modules.architecture] : undefined;
    if (arch) evidence.arch = { name: arch, source: `ELF machine of the shipped modules (${modules.architecture})` };
  }
  return evidence;
}

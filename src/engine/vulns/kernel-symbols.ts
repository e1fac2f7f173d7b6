// Kernel symbol evidence: the function names the image's kernel has, from (first found wins) a System.map or a
// /proc/kallsyms-style list shipped in the image, the .symtab of an unstripped vmlinux ELF, or the compressed
// kallsyms tables of a raw kernel image (kernel-kallsyms.ts). The kernel triage looks a CVE's routines up in them.
import { posix } from 'node:path';
import { bufferSource } from '../binaries/byte-source.js';
import { isElf, parseElf } from '../binaries/elf.js';
import type { FileIndex } from '../file-index.js';
import type { Component, FileNode } from '../types.js';
import { kallsymsNames } from './kernel-kallsyms.js';

export interface KernelSymbols {
  /** Where the names were read: a file, with how ('System.map', 'ELF .symtab', 'kallsyms'). */
  source: string;
  /** Text (function) symbol names, sorted and unique. */
  names: string[];
}

/** The largest kernel image or symbol list read. */
const MAX_BYTES = 64 * 1024 * 1024;

/** A System.map or /proc/kallsyms text: `address type name [module]` lines; the text (t/T/w/W) symbols. */
export function parseSymbolList(text: string): string[] {
  const names: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^[0-9a-fA-F]+\s+([tTwW])\s+(\S+)/.exec(line);
    if (m) names.push(m[2]!);
  }
  return names;
}

const sorted = (names: string[]) => [...new Set(names)].sort();

/** Text symbols of an unstripped kernel ELF (vmlinux), undefined when it has no .symtab. */
export async function elfTextSymbols(data: Buffer): Promise<string[] | undefined> {
  if (!isElf(data)) return undefined;
  const elf = await parseElf(bufferSource(data), { symtab: true, dynamicSymbols: false, maxSymbols: 1_000_000 });
  const names = (elf.symbols ?? []).filter((s) => s.defined && s.type === 'func' && s.name !== '').map((s) => s.name);
  return names.length > 0 ? names : undefined;
}

/** Kernel images of the tree to read symbols from: the kernel components' files, then vmlinux/zImage-like names. */
export function kernelImages(index: FileIndex, kernels: Component[]): FileNode[] {
  const candidates = new Map<string, FileNode>();
  for (const path of kernels.flatMap((k) => k.paths)) {
    const node = index.get(path);
    if (node) candidates.set(node.path, node);
  }
  for (const node of index.glob('**/vmlinux*', '**/zImage*', '**/bzImage*', '**/Image', '**/uImage*')) candidates.set(node.path, node);
  return [...candidates.values()].filter((n) => n.kind === 'file' && n.size <= MAX_BYTES);
}

/** The kernel's function names found in the image, with their source; undefined when none can be read. */
export async function findKernelSymbols(index: FileIndex, kernels: Component[]): Promise<KernelSymbols | undefined> {
  for (const node of index.glob('**/System.map*', '**/proc/kallsyms', '**/kallsyms')) {
    if (node.kind !== 'file' || node.size > MAX_BYTES) continue;
    const names = parseSymbolList((await index.read(node)).toString('latin1'));
    if (names.length > 0) return { source: `${node.path} (${posix.basename(node.path).startsWith('System.map') ? 'System.map' : 'symbol list'})`, names: sorted(names) };
  }
  for (const node of kernelImages(index, kernels)) {
    const data = await index.read(node);
    const fromElf = await elfTextSymbols(data).catch(() => undefined);
    if (fromElf) return { source: `${node.path} (ELF .symtab)`, names: sorted(fromElf) };
    const fromKallsyms = kallsymsNames(data);
    if (fromKallsyms && fromKallsyms.length > 0) return { source: `${node.path} (kallsyms)`, names: sorted(fromKallsyms) };
  }
  return undefined;
}

// Kernel module evidence: the modules the image ships (`*.ko` under lib/modules: the name from .modinfo, the
// functions each defines, the architecture it was built for), the modules built into the kernel
// (`modules.builtin`, `modules.builtin.modinfo`) and the build's module list (`modules.order`). The kernel triage
// counts a CVE's file as built when the module compiled from it ships or is built in, says so when the build made
// it as a module that the image does not ship, and maps a source file to module names with moduleNamesOf. A .ko
// does not name its source files (.modinfo has its name, license, dependencies and a source checksum only).
import { posix } from 'node:path';
import { bufferSource } from '../binaries/byte-source.js';
import { isElf, parseElf, readSection } from '../binaries/elf.js';
import type { FileIndex } from '../file-index.js';

export interface KernelModules {
  /** Where they were found: the lib/modules directories. */
  source: string;
  /** Shipped modules: name (from .modinfo, '-' as '_') and path in the image. */
  shipped: Array<{ name: string; path: string }>;
  /** Modules built into the kernel (modules.builtin, modules.builtin.modinfo), by name. */
  builtin: string[];
  /** Modules the kernel's build made (modules.order), by name: built as modules, shipped or not. */
  ordered?: string[];
  /** Functions the shipped modules define. */
  symbols: string[];
  /** The shipped modules' ELF architecture ('mipsel', 'arm', 'x86_64', ...), when they agree. */
  architecture?: string;
}

/** The largest module read. */
const MAX_MODULE_BYTES = 16 * 1024 * 1024;

const normalise = (name: string) => name.replace(/-/g, '_');
const moduleName = (path: string) => normalise(posix.basename(path).replace(/\.ko(\.(gz|xz|zst))?$/, ''));

/** `kernel/net/sched/sch_qfq.ko` lines (modules.builtin, modules.order) → module names. */
export function parseModuleList(text: string): string[] {
  return text.split('\n').map((l) => l.trim()).filter((l) => l.endsWith('.ko')).map(moduleName);
}

/** modules.builtin.modinfo: NUL-separated `module.key=value` entries → module names. */
export function parseBuiltinModinfo(data: Buffer): string[] {
  return [...new Set(data.toString('latin1').split('\0').map((e) => /^([A-Za-z0-9_-]+)\.[A-Za-z0-9_]+=/.exec(e)?.[1]).filter((n): n is string => n !== undefined).map(normalise))];
}

/** A .ko's name (its .modinfo `name=`, else the file name), defined functions and architecture. */
export async function readModule(path: string, data: Buffer): Promise<{ name: string; symbols: string[]; architecture: string } | undefined> {
  if (!isElf(data)) return undefined;
  const src = bufferSource(data);
  const elf = await parseElf(src, { symtab: true, dynamicSymbols: false });
  const modinfo = elf.sections.find((s) => s.name === '.modinfo');
  const info = modinfo ? (await readSection(src, modinfo)).toString('latin1').split('\0') : [];
  const name = info.find((e) => e.startsWith('name='))?.slice(5);
  const symbols = (elf.symbols ?? []).filter((s) => s.defined && s.type === 'func' && s.name !== '').map((s) => s.name);
  return { name: normalise(name || moduleName(path)), symbols, architecture: elf.architecture };
}

/** The module evidence of the image: undefined when it has no lib/modules tree. */
export async function findKernelModules(index: FileIndex): Promise<KernelModules | undefined> {
  const roots = new Set<string>();
  const shipped: KernelModules['shipped'] = [];
  const symbols = new Set<string>();
  const architectures = new Set<string>();
  const builtin = new Set<string>();
  const ordered = new Set<string>();
  for (const node of index.glob('**/lib/modules/**')) {
    if (node.kind !== 'file') continue;
    const root = /^(.*?lib\/modules)\//.exec(node.path)?.[1];
    if (root) roots.add(root);
    if (posix.basename(node.path).endsWith('.ko') && node.size <= MAX_MODULE_BYTES) {
      const module = await readModule(node.path, await index.read(node)).catch(() => undefined);
      if (!module) continue;
      shipped.push({ name: module.name, path: node.path });
      for (const s of module.symbols) symbols.add(s);
      architectures.add(module.architecture);
    } else if (posix.basename(node.path) === 'modules.builtin' && node.size <= MAX_MODULE_BYTES) {
      for (const n of parseModuleList((await index.read(node)).toString('latin1'))) builtin.add(n);
    } else if (posix.basename(node.path) === 'modules.builtin.modinfo' && node.size <= MAX_MODULE_BYTES) {
      for (const n of parseBuiltinModinfo(await index.read(node))) builtin.add(n);
    } else if (posix.basename(node.path) === 'modules.order' && node.size <= MAX_MODULE_BYTES) {
      for (const n of parseModuleList((await index.read(node)).toString('latin1'))) ordered.add(n);
    }
  }
  if (roots.size === 0) return undefined;
  return {
    source: [...roots].sort().join(', '),
    shipped: shipped.sort((a, b) => a.path.localeCompare(b.path)),
    builtin: [...builtin].sort(),
    ...(ordered.size > 0 ? { ordered: [...ordered].sort() } : {}),
    symbols: [...symbols].sort(),
    ...(architectures.size === 1 ? { architecture: [...architectures][0]! } : {}),
  };
}

/** Trailing words of a composite module's main file: nf_tables_api.c is part of nf_tables.ko. */
const PART_SUFFIX = /_(core|main|api|common|ops|dev|drv|init|base)$/;

/**
 * The module names a source file may be compiled into: its own name (foo.c → foo.ko), without a part suffix
 * (nf_tables_api.c → nf_tables.ko), or its directory's (fs/ext4/inode.c → ext4.ko, a composite module).
 */
export function moduleNamesOf(file: string): string[] {
  const base = normalise(posix.basename(file).replace(/\.[ch]$/, ''));
  const dir = normalise(posix.basename(posix.dirname(file)));
  return [...new Set([base, base.replace(PART_SUFFIX, ''), dir])].filter((n) => n !== '' && n !== '.');
}

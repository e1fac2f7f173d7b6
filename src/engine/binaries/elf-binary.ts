// One ELF executable or shared object → its BinaryInfo: hardening (elf-hardening.ts) and the unsafe functions it
// imports or links, with their call sites where the architecture is decoded:
//   x86, x86-64      `call rel32` to PLT/.plt.sec/.plt.got stubs or static functions, `call *GOT` (-fno-plt)
//   ARM (A32/Thumb)  `bl`/`blx` to PLT entries or static functions
//   AArch64          `bl` to PLT entries or static functions
//   MIPS, MIPS64     `lw/ld $t9, off($gp)` + `jalr $t9` through the GOT, `jal`/`bal` to .plt stubs or functions
// Other architectures, and MIPS binaries flagged as holding MIPS16 or microMIPS code, report the unsafe functions
// without call sites. The file is parsed from one buffer.
import type { BinaryInfo } from '../types.js';
import { bufferSource } from './byte-source.js';
import type { CallTargets, CodeRegion } from './call-sites.js';
import { decodeAarch64Calls, decodeArmCalls, findAarch64Stubs, findArmStubs } from './call-sites-arm.js';
import { decodeMipsCalls, findMipsStubs } from './call-sites-mips.js';
import { decodeX86Calls, findX86Stubs } from './call-sites-x86.js';
import type { DebugSymbolIndex, SymbolSource } from './debug-files.js';
import { type ElfInfo, type ElfSymbol, parseElf, PT_LOAD, SHT_NOBITS } from './elf.js';
import { DT_PLTGOT, gotSlots, MIPS_GP_OFFSET } from './elf-got.js';
import { elfHardening, isPieExecutable } from './elf-hardening.js';
import { isNetworkFacing } from './network-facing.js';
import { FunctionIndex, type UnsafeCandidate, UnsafeCallCollector, unsafeFunctionName, unsafeUses } from './unsafe-functions.js';

const EM_386 = 3;
const EM_MIPS = 8;
const EM_ARM = 40;
const EM_X86_64 = 62;
const EM_AARCH64 = 183;
const SHF_EXECINSTR = 0x4;
const PF_X = 1;
const EF_ARM_BE8 = 0x00800000;
/** MIPS16 and microMIPS code (OpenWrt's default userland) is not decoded: such binaries count imports. */
const EF_MIPS_COMPRESSED = 0x04000000 | 0x02000000;
const DECODED = new Set([EM_386, EM_X86_64, EM_ARM, EM_AARCH64, EM_MIPS]);
const STUB_SECTIONS = new Set(['.plt', '.plt.sec', '.plt.got', '.iplt', '.MIPS.stubs']);

/** Executable code: SHF_EXECINSTR sections, or executable PT_LOAD segments when the section headers are gone. */
function codeRegions(elf: ElfInfo, buf: Buffer): { code: CodeRegion[]; stubs: CodeRegion[] } {
  const region = (address: number, offset: number, size: number): CodeRegion => ({ address, bytes: buf.subarray(offset, Math.min(offset + size, buf.length)) });
  const sections = elf.sections.filter((s) => (s.flags & SHF_EXECINSTR) !== 0 && s.type !== SHT_NOBITS && s.size > 0 && s.offset < buf.length);
  if (sections.length) {
    const code = sections.map((s) => ({ name: s.name, r: region(s.addr, s.offset, s.size) }));
    return { code: code.map((c) => c.r), stubs: code.filter((c) => STUB_SECTIONS.has(c.name)).map((c) => c.r) };
  }
  const code = elf.segments.filter((s) => s.type === PT_LOAD && (s.flags & PF_X) !== 0 && s.offset < buf.length).map((s) => region(s.vaddr, s.offset, s.filesz));
  return { code, stubs: code };
}

/** Where a function symbol's code starts: ARM symbols mark Thumb code with bit 0. */
function codeAddress(elf: ElfInfo, value: number): number {
  return elf.machine === EM_ARM ? value - (value % 2) : value;
}

/** Function symbols to name callers: .symtab when present, else the defined dynamic symbols. */
function functionIndex(elf: ElfInfo): FunctionIndex {
  const table = elf.symbols?.length ? elf.symbols : elf.dynamicSymbols;
  return new FunctionIndex(() => table.filter((s) => s.defined && (s.type === 'func' || s.type === 'ifunc') && s.value !== 0).map((s) => ({ address: codeAddress(elf, s.value), name: s.name })));
}

/**
 * Unsafe functions the binary uses: imported (undefined dynamic symbols) or linked in (defined functions of an
 * executable; a shared library that exports one is its implementation, like libc, not a user of it).
 */
function candidatesOf(elf: ElfInfo, isExecutable: boolean): { candidates: UnsafeCandidate[]; imported: Map<number, number>; linked: Map<ElfSymbol, number> } {
  const candidates: UnsafeCandidate[] = [];
  const imported = new Map<number, number>();
  const linked = new Map<ElfSymbol, number>();
  const bySymbol = new Map<string, number>();
  const add = (symbol: string, name: string, linkage: UnsafeCandidate['linkage']): number => {
    let id = bySymbol.get(symbol);
    if (id === undefined) {
      id = candidates.push({ name, symbol, linkage }) - 1;
      bySymbol.set(symbol, id);
    }
    return id;
  };
  for (const s of elf.dynamicSymbols) {
    const name = unsafeFunctionName(s.name, 'elf');
    if (!name) continue;
    if (!s.defined) imported.set(s.index, add(s.name, name, 'imported'));
    else if (isExecutable && s.type === 'func') linked.set(s, add(s.name, name, 'static'));
  }
  if (isExecutable) {
    for (const s of elf.symbols ?? []) {
      const name = s.defined && (s.type === 'func' || s.type === 'ifunc') ? unsafeFunctionName(s.name, 'elf') : undefined;
      if (name) linked.set(s, add(s.name, name, 'static'));
    }
  }
  return { candidates, imported, linked };
}

/** $gp of MIPS code: the _gp symbol, else 0x7ff0 past the GOT start (DT_PLTGOT or the .got section). */
function mipsGp(elf: ElfInfo): number | undefined {
  const gp = elf.symbols?.find((s) => s.name === '_gp' && s.defined);
  if (gp) return gp.value;
  const got = elf.dynamicTags.get(DT_PLTGOT) ?? elf.sections.find((s) => s.name === '.got')?.addr;
  return got === undefined ? undefined : got + MIPS_GP_OFFSET;
}

/** MIPS local GOT entries (and static PIC binaries' whole GOT) hold function addresses: slots of the targets. */
function addMipsLocalGot(elf: ElfInfo, buf: Buffer, targets: CallTargets): void {
  const got = elf.sections.find((s) => s.name === '.got' && s.type !== SHT_NOBITS);
  if (!got || got.offset + got.size > buf.length) return;
  const w = elf.class === 64 ? 8 : 4;
  const le = elf.endian === 'le';
  for (let o = 0; o + w <= got.size; o += w) {
    const at = got.offset + o;
    const value = w === 8 ? Number(le ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at)) : le ? buf.readUInt32LE(at) : buf.readUInt32BE(at);
    const target = targets.addresses.get(value);
    if (target !== undefined && !targets.slots.has(got.addr + o)) targets.slots.set(got.addr + o, target);
  }
}

const KERNEL_SECTIONS = new Set(['__ksymtab', '__ex_table', '__param', '.modinfo']);

/**
 * A kernel image (vmlinux): static, and either kernel-only sections or a load address in the kernel half of
 * the address space (0x80000000 and up on 32-bit, the canonical upper half on 64-bit).
 */
function isKernel(elf: ElfInfo): boolean {
  if (elf.type !== 'executable' || !elf.staticallyLinked) return false;
  if (elf.sections.some((s) => KERNEL_SECTIONS.has(s.name))) return true;
  const load = elf.segments.find((s) => s.type === PT_LOAD);
  return load !== undefined && load.vaddr >= (elf.class === 64 ? 0xffff_8000_0000_0000 : 0x8000_0000);
}

/** Functions the binary imports, or links when it is static: what isNetworkFacing looks for. */
function socketApi(elf: ElfInfo): Set<string> {
  const names = new Set<string>();
  for (const s of elf.dynamicSymbols) if (!s.defined) names.add(s.name);
  if (elf.staticallyLinked) for (const s of elf.symbols ?? []) if (s.defined && s.type === 'func') names.add(s.name);
  return names;
}

/**
 * A stripped binary takes the function symbols of its matched debug file (by build-id): they name callers, find
 * statically linked unsafe functions and the stack canary, as the binary's own .symtab would.
 */
function useDebugSymbols(elf: ElfInfo, debug: DebugSymbolIndex | undefined): { source: SymbolSource; debugFile?: string } {
  const matched = debug?.elf(elf.buildId);
  if (elf.symbols?.some((s) => s.defined && s.type === 'func')) return { source: 'symtab' };
  if (!matched) return { source: 'none' };
  elf.symbols = matched.symbols;
  return { source: matched.source, debugFile: matched.file };
}

export async function analyzeElf(path: string, buf: Buffer, debug?: DebugSymbolIndex): Promise<BinaryInfo | undefined> {
  const src = bufferSource(buf);
  const elf = await parseElf(src, { symtab: true });
  if (elf.type !== 'executable' && elf.type !== 'shared-object') return undefined;
  const names = useDebugSymbols(elf, debug);
  const isExecutable = elf.type === 'executable' || isPieExecutable(elf);
  const { candidates, imported, linked } = candidatesOf(elf, isExecutable);
  const decoded = DECODED.has(elf.machine) && !(elf.machine === EM_MIPS && (elf.flags & EF_MIPS_COMPRESSED) !== 0);
  const collector = new UnsafeCallCollector(candidates, functionIndex(elf));
  if (decoded && candidates.length) await decodeCalls(elf, buf, src, imported, linked, collector);
  const unsafeFunctions = collector.result(decoded);
  return {
    path,
    format: 'elf',
    type: isKernel(elf) ? 'kernel' : isExecutable ? 'executable' : 'shared-object',
    arch: elf.architecture,
    bits: elf.class,
    endian: elf.endian,
    hardening: elfHardening(elf),
    unsafeFunctions,
    callSitesDecoded: decoded,
    networkFacing: isNetworkFacing(path, socketApi(elf)),
    unsafeUses: unsafeUses(unsafeFunctions, decoded),
    symbols: {
      imported: elf.dynamicSymbols.filter((s) => !s.defined).length,
      exported: elf.dynamicSymbols.filter((s) => s.defined && s.bind !== 'local').length,
      defined: elf.symbols?.filter((s) => s.defined).length ?? 0,
      ...names,
    },
  };
}

async function decodeCalls(elf: ElfInfo, buf: Buffer, src: ReturnType<typeof bufferSource>, imported: Map<number, number>, linked: Map<ElfSymbol, number>, collector: UnsafeCallCollector): Promise<void> {
  const targets: CallTargets = { addresses: new Map(), slots: new Map() };
  for (const [symbol, id] of linked) targets.addresses.set(codeAddress(elf, symbol.value), id);
  const slots = await gotSlots(src, elf);
  for (const [slot, index] of slots.symbols) {
    const id = imported.get(index);
    if (id !== undefined) targets.slots.set(slot, id);
  }
  // An undefined symbol with a value names its canonical PLT entry or MIPS stub (address-taken imports).
  for (const s of elf.dynamicSymbols) if (!s.defined && s.value !== 0 && imported.has(s.index)) targets.addresses.set(s.value, imported.get(s.index)!);
  // Static binaries call IFUNCs (glibc's strcpy, strcat) through .iplt stubs whose slot names the resolver.
  if (slots.ifuncs.size) {
    const resolvers = new Map<number, number>();
    for (const [symbol, id] of linked) if (symbol.type === 'ifunc') resolvers.set(symbol.value, id);
    for (const [slot, resolver] of slots.ifuncs) {
      const id = resolvers.get(resolver);
      if (id !== undefined) targets.slots.set(slot, id);
    }
  }
  const { code, stubs } = codeRegions(elf, buf);
  const le = elf.endian === 'le';
  const gotBase = elf.dynamicTags.get(DT_PLTGOT);
  switch (elf.machine) {
    case EM_386:
    case EM_X86_64: {
      const is64 = elf.machine === EM_X86_64;
      for (const r of stubs) findX86Stubs(r, is64, gotBase, targets);
      for (const r of code) decodeX86Calls(r, is64, gotBase, targets, collector.onCall);
      break;
    }
    case EM_ARM: {
      // BE8 images (ARMv6+) keep little-endian instructions in a big-endian file.
      const codeLe = le || (elf.flags & EF_ARM_BE8) !== 0;
      for (const r of stubs) findArmStubs(r, codeLe, targets);
      for (const r of code) decodeArmCalls(r, codeLe, targets, collector.onCall);
      break;
    }
    case EM_AARCH64:
      for (const r of stubs) findAarch64Stubs(r, targets);
      for (const r of code) decodeAarch64Calls(r, targets, collector.onCall);
      break;
    case EM_MIPS: {
      for (const r of stubs) findMipsStubs(r, le, targets);
      addMipsLocalGot(elf, buf, targets);
      const gp = mipsGp(elf);
      for (const r of code) decodeMipsCalls(r, le, gp, targets, collector.onCall);
      break;
    }
  }
}

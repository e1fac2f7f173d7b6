// ELF hardening as checksec (checksec.sh / checksec.rs) reports it, from the parsed headers only:
//   NX       PT_GNU_STACK present and not executable; no PT_GNU_STACK means an executable stack ("NX disabled").
//   PIE      ET_EXEC: no. ET_DYN: a PIE executable when it has DT_DEBUG (checksec.sh's test) or DF_1_PIE
//            (checksec.rs's test); otherwise a shared object, which checksec shows as "DSO" and which is
//            position-independent by construction, so `pie` is true for it too. (PT_INTERP proves nothing:
//            glibc's and uClibc's libc.so have one so that they can be run.)
//   RELRO    PT_GNU_RELRO present: "full" with immediate binding (DT_BIND_NOW, DF_BIND_NOW in DT_FLAGS or
//            DF_1_NOW in DT_FLAGS_1), else "partial"; no PT_GNU_RELRO: "none".
//   Canary   a symbol (.dynsym or .symtab) named __stack_chk_fail, __stack_chk_guard or __intel_security_cookie,
//            or one starting with them (__stack_chk_fail_local on i386), as checksec's grep over `readelf -s`.
//   Fortify  a fortified libc entry point: a symbol named __*_chk (__sprintf_chk, __memcpy_chk, ...).
//   Stripped no .symtab section.
import type { ElfHardening } from '../types.js';
import type { ElfInfo, ElfSymbol } from './elf.js';

const PT_GNU_STACK = 0x6474e551;
const PT_GNU_RELRO = 0x6474e552;
const PF_X = 1;
const DT_DEBUG = 21;
const DT_BIND_NOW = 24;
const DT_FLAGS = 30;
const DT_FLAGS_1 = 0x6ffffffb;
const DF_BIND_NOW = 0x8;
const DF_1_NOW = 0x1;
const DF_1_PIE = 0x08000000;

const CANARY_SYMBOLS = ['__stack_chk_fail', '__stack_chk_guard', '__intel_security_cookie'];
const FORTIFIED = /^__\w+_chk$/;

/**
 * True for an ET_DYN file that is an executable (a PIE), false for a shared library or an ET_EXEC. Old MIPS
 * toolchains give libraries a DT_DEBUG too, so one with a SONAME is a library unless it says DF_1_PIE.
 */
export function isPieExecutable(elf: ElfInfo): boolean {
  if (elf.type !== 'shared-object') return false;
  if (((elf.dynamicTags.get(DT_FLAGS_1) ?? 0) & DF_1_PIE) !== 0) return true;
  return elf.dynamicTags.has(DT_DEBUG) && elf.soname === undefined;
}

export function elfHardening(elf: ElfInfo): ElfHardening {
  const stack = elf.segments.find((s) => s.type === PT_GNU_STACK);
  const tags = elf.dynamicTags;
  const bindNow = tags.has(DT_BIND_NOW) || ((tags.get(DT_FLAGS) ?? 0) & DF_BIND_NOW) !== 0 || ((tags.get(DT_FLAGS_1) ?? 0) & DF_1_NOW) !== 0;
  const relro = elf.segments.some((s) => s.type === PT_GNU_RELRO) ? (bindNow ? 'full' : 'partial') : 'none';
  const symbols: ElfSymbol[] = elf.symbols ? [...elf.dynamicSymbols, ...elf.symbols] : elf.dynamicSymbols;
  return {
    nx: stack !== undefined && (stack.flags & PF_X) === 0,
    pie: elf.type === 'shared-object',
    relro,
    canary: symbols.some((s) => CANARY_SYMBOLS.some((c) => s.name.startsWith(c))),
    fortify: symbols.some((s) => FORTIFIED.test(s.name)),
    stripped: !elf.hasSymtab,
    rpath: elf.rpath ?? null,
    runpath: elf.runpath ?? null,
  };
}

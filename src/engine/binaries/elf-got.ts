// Which GOT slot holds which imported symbol: the address a PLT stub (or a `call *slot`) jumps through, mapped
// to its .dynsym index. Most architectures say it with relocations (JUMP_SLOT in .rela.plt/.rel.plt, GLOB_DAT
// in .rela.dyn/.rel.dyn, found by section or by DT_JMPREL/DT_REL/DT_RELA when sections are stripped). MIPS
// has no such relocations for its global GOT: entry `DT_MIPS_LOCAL_GOTNO + (i - DT_MIPS_GOTSYM)` belongs to
// .dynsym entry i (System V MIPS ABI, "Global Offset Table").
import type { ByteSource } from './byte-source.js';
import { type ElfInfo, readSection, vaddrToOffset } from './elf.js';

export const DT_PLTGOT = 3;
const DT_PLTRELSZ = 2;
const DT_RELA = 7;
const DT_RELASZ = 8;
const DT_REL = 17;
const DT_RELSZ = 18;
const DT_PLTREL = 20;
const DT_JMPREL = 23;
const DT_MIPS_LOCAL_GOTNO = 0x7000000a;
const DT_MIPS_SYMTABNO = 0x70000011;
const DT_MIPS_GOTSYM = 0x70000013;
const SHT_RELA = 4;
const SHT_REL = 9;
const EM_MIPS = 8;
const MAX_RELOCS = 1 << 20;

/** The global pointer convention of MIPS: $gp points 0x7ff0 bytes into the GOT, so 16-bit offsets reach 64 KiB of it. */
export const MIPS_GP_OFFSET = 0x7ff0;

function word(buf: Buffer, at: number, le: boolean, is64: boolean): number {
  if (is64) return Number(le ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at));
  return le ? buf.readUInt32LE(at) : buf.readUInt32BE(at);
}

/** IRELATIVE relocation types (x86-64, i386, ARM, AArch64): the slot gets what an IFUNC resolver returns. */
const IRELATIVE = new Set([37, 42, 160, 1032]);

export interface GotSlots {
  /** GOT slot address → .dynsym index. */
  symbols: Map<number, number>;
  /** GOT slot address → IFUNC resolver address (RELA addend): how static binaries call strcpy and friends. */
  ifuncs: Map<number, number>;
}

/** Reads one relocation table and records slot → symbol index for entries that name a symbol. */
function addRelocations(slots: GotSlots, table: Buffer, rela: boolean, elf: ElfInfo): void {
  const out = slots.symbols;
  const is64 = elf.class === 64;
  const le = elf.endian === 'le';
  const w = is64 ? 8 : 4;
  const entsize = rela ? 3 * w : 2 * w;
  const count = Math.min(Math.floor(table.length / entsize), MAX_RELOCS);
  for (let i = 0; i < count; i++) {
    const o = i * entsize;
    const slot = word(table, o, le, is64);
    // r_info: symbol in the high half (ELF64: high 32 bits, ELF32: high 24 bits).
    const info = word(table, o + w, le, is64);
    const sym = is64 ? (le ? table.readUInt32LE(o + w + 4) : table.readUInt32BE(o + w)) : info >>> 8;
    if (sym !== 0) {
      if (!out.has(slot)) out.set(slot, sym);
    } else if (rela && IRELATIVE.has(is64 ? info % 2 ** 32 : info & 0xff)) {
      slots.ifuncs.set(slot, word(table, o + 2 * w, le, is64));
    }
  }
}

/** The GOT slots that name a symbol (relocations or the MIPS global GOT) or an IFUNC resolver. */
export async function gotSlots(src: ByteSource, elf: ElfInfo): Promise<GotSlots> {
  const out: GotSlots = { symbols: new Map(), ifuncs: new Map() };
  const tags = elf.dynamicTags;
  if (elf.machine === EM_MIPS) {
    await addMipsGlobalGot(out, src, elf);
    return out;
  }
  const relSections = elf.sections.filter((s) => (s.type === SHT_RELA || s.type === SHT_REL) && s.size > 0);
  if (relSections.length) {
    for (const s of relSections) addRelocations(out, await readSection(src, s), s.type === SHT_RELA, elf);
    return out;
  }
  await addTaggedRelocations(out, src, elf, [
    [tags.get(DT_JMPREL), tags.get(DT_PLTRELSZ), tags.get(DT_PLTREL) === DT_RELA],
    [tags.get(DT_RELA), tags.get(DT_RELASZ), true],
    [tags.get(DT_REL), tags.get(DT_RELSZ), false],
  ]);
  return out;
}

/** Relocation tables found by dynamic tags (address, size, RELA?), for files without section headers. */
async function addTaggedRelocations(out: GotSlots, src: ByteSource, elf: ElfInfo, tables: Array<[number | undefined, number | undefined, boolean]>): Promise<void> {
  for (const [addr, size, rela] of tables) {
    if (addr === undefined || !size) continue;
    const at = vaddrToOffset(elf.segments, addr);
    if (at !== undefined) addRelocations(out, await src.read(at, Math.min(size, MAX_RELOCS * 24)), rela, elf);
  }
}

async function addMipsGlobalGot(slots: GotSlots, src: ByteSource, elf: ElfInfo): Promise<void> {
  const out = slots.symbols;
  const tags = elf.dynamicTags;
  const got = tags.get(DT_PLTGOT);
  const localCount = tags.get(DT_MIPS_LOCAL_GOTNO);
  const first = tags.get(DT_MIPS_GOTSYM);
  const symbolCount = tags.get(DT_MIPS_SYMTABNO);
  if (got === undefined || localCount === undefined || first === undefined || symbolCount === undefined) return;
  const w = elf.class === 64 ? 8 : 4;
  for (let i = first; i < Math.min(symbolCount, MAX_RELOCS); i++) out.set(got + (localCount + i - first) * w, i);
  // Non-PIC MIPS executables also have a .got.plt reached through .plt stubs, described by JUMP_SLOT relocations
  // (.rel.plt, or DT_JMPREL when the section headers are gone). MIPS64 packs r_info differently: not read.
  if (elf.class !== 32) return;
  const pltRel = elf.sections.find((s) => s.name === '.rel.plt' && s.type === SHT_REL);
  if (pltRel) addRelocations(slots, await readSection(src, pltRel), false, elf);
  else await addTaggedRelocations(slots, src, elf, [[tags.get(DT_JMPREL), tags.get(DT_PLTRELSZ), false]]);
}

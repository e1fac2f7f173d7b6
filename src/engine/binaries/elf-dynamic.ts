// The ELF tables behind the header: dynamic entries (DT_NEEDED, DT_SONAME, DT_RPATH/RUNPATH), GNU symbol
// versioning (.gnu.version_r / _d / .gnu.version), symbol tables and the GNU build-id note. Sections are used
// when present; stripped-section files fall back to the program headers (PT_DYNAMIC, PT_NOTE, DT_* addresses).
import {
  cString,
  type ElfContext,
  type ElfSymbol,
  MAX_TABLE,
  PT_DYNAMIC,
  PT_NOTE,
  readExact,
  SHT_DYNAMIC,
  SHT_DYNSYM,
  SHT_GNU_VERDEF,
  SHT_GNU_VERNEED,
  SHT_GNU_VERSYM,
  SHT_NOTE,
  vaddrToOffset,
} from './elf.js';

const DT_NEEDED = 1;
const DT_HASH = 4;
const DT_STRTAB = 5;
const DT_SYMTAB = 6;
const DT_STRSZ = 10;
const DT_SONAME = 14;
const DT_RPATH = 15;
const DT_RUNPATH = 29;
const DT_VERSYM = 0x6ffffff0;
const DT_VERDEF = 0x6ffffffc;
const DT_VERDEFNUM = 0x6ffffffd;
const DT_VERNEED = 0x6ffffffe;
const DT_VERNEEDNUM = 0x6fffffff;

export interface DynamicInfo {
  needed: string[];
  soname?: string;
  rpath?: string;
  runpath?: string;
  /** String table of the dynamic section. */
  strtab: Buffer;
  /** Raw tag → value (first occurrence), for the address-based fallbacks. */
  tags: Map<number, number>;
}

function word(buf: Buffer, at: number, ctx: ElfContext): number {
  if (ctx.is64) return Number(ctx.le ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at));
  return ctx.le ? buf.readUInt32LE(at) : buf.readUInt32BE(at);
}

const u16 = (b: Buffer, at: number, ctx: ElfContext): number => (ctx.le ? b.readUInt16LE(at) : b.readUInt16BE(at));
const u32 = (b: Buffer, at: number, ctx: ElfContext): number => (ctx.le ? b.readUInt32LE(at) : b.readUInt32BE(at));

export async function readDynamic(ctx: ElfContext): Promise<DynamicInfo | undefined> {
  const section = ctx.sections.find((s) => s.type === SHT_DYNAMIC);
  const segment = ctx.segments.find((s) => s.type === PT_DYNAMIC);
  const offset = section?.offset ?? segment?.offset;
  const size = section?.size ?? segment?.filesz;
  if (offset === undefined || !size) return undefined;
  const table = await readExact(ctx.src, offset, Math.min(size, 1 << 20), 'dynamic section');
  const entsize = ctx.is64 ? 16 : 8;
  const entries: Array<[number, number]> = [];
  for (let o = 0; o + entsize <= table.length; o += entsize) {
    const tag = word(table, o, ctx);
    if (tag === 0) break;
    entries.push([tag, word(table, o + entsize / 2, ctx)]);
  }
  const tags = new Map<number, number>();
  for (const [tag, value] of entries) if (!tags.has(tag)) tags.set(tag, value);

  let strtab: Buffer = Buffer.alloc(0);
  const linked = section ? ctx.sections[section.link] : undefined;
  if (linked && linked.size > 0) {
    strtab = await readExact(ctx.src, linked.offset, Math.min(linked.size, MAX_TABLE), 'dynamic string table');
  } else if (tags.has(DT_STRTAB) && tags.has(DT_STRSZ)) {
    const at = vaddrToOffset(ctx.segments, tags.get(DT_STRTAB)!);
    if (at !== undefined) strtab = await readExact(ctx.src, at, Math.min(tags.get(DT_STRSZ)!, MAX_TABLE, ctx.src.size - at), 'dynamic string table');
  }
  const info: DynamicInfo = { needed: [], strtab, tags };
  for (const [tag, value] of entries) {
    if (tag === DT_NEEDED) info.needed.push(cString(strtab, value));
    else if (tag === DT_SONAME) info.soname = cString(strtab, value);
    else if (tag === DT_RPATH) info.rpath = cString(strtab, value);
    else if (tag === DT_RUNPATH) info.runpath = cString(strtab, value);
  }
  info.needed = info.needed.filter((n) => n !== '');
  return info;
}

/** Bytes of a table found by section type, or by dynamic tag address when sections are stripped. */
async function table(ctx: ElfContext, type: number, dyn: DynamicInfo | undefined, tag: number, fallbackSize: number): Promise<{ buf: Buffer; link?: number } | undefined> {
  const section = ctx.sections.find((s) => s.type === type);
  if (section) return { buf: await readExact(ctx.src, section.offset, Math.min(section.size, MAX_TABLE), `section ${section.name}`), link: section.link };
  const addr = dyn?.tags.get(tag);
  if (addr === undefined) return undefined;
  const at = vaddrToOffset(ctx.segments, addr);
  if (at === undefined) return undefined;
  return { buf: await ctx.src.read(at, Math.min(fallbackSize, MAX_TABLE)) };
}

export interface Versions {
  needs: Array<{ file: string; versions: string[] }>;
  defs: string[];
  /** Version index (as used in .gnu.version) → name. */
  names: Map<number, string>;
}

export async function readVersions(ctx: ElfContext, dyn: DynamicInfo | undefined): Promise<Versions> {
  const out: Versions = { needs: [], defs: [], names: new Map() };
  const strtab = dyn?.strtab ?? Buffer.alloc(0);
  const need = await table(ctx, SHT_GNU_VERNEED, dyn, DT_VERNEED, 64 * 1024);
  const needCount = dyn?.tags.get(DT_VERNEEDNUM) ?? 4096;
  if (need) {
    let o = 0;
    for (let i = 0; i < needCount && o + 16 <= need.buf.length; i++) {
      const cnt = u16(need.buf, o + 2, ctx);
      const entry = { file: cString(strtab, u32(need.buf, o + 4, ctx)), versions: [] as string[] };
      let a = o + u32(need.buf, o + 8, ctx);
      for (let j = 0; j < cnt && a + 16 <= need.buf.length; j++) {
        const name = cString(strtab, u32(need.buf, a + 8, ctx));
        entry.versions.push(name);
        out.names.set(u16(need.buf, a + 6, ctx) & 0x7fff, name);
        const next = u32(need.buf, a + 12, ctx);
        if (next === 0) break;
        a += next;
      }
      out.needs.push(entry);
      const next = u32(need.buf, o + 12, ctx);
      if (next === 0) break;
      o += next;
    }
  }
  const def = await table(ctx, SHT_GNU_VERDEF, dyn, DT_VERDEF, 64 * 1024);
  const defCount = dyn?.tags.get(DT_VERDEFNUM) ?? 4096;
  if (def) {
    let o = 0;
    for (let i = 0; i < defCount && o + 20 <= def.buf.length; i++) {
      const flags = u16(def.buf, o + 2, ctx);
      const ndx = u16(def.buf, o + 4, ctx);
      const aux = o + u32(def.buf, o + 12, ctx);
      if (aux + 8 <= def.buf.length) {
        const name = cString(strtab, u32(def.buf, aux, ctx));
        out.names.set(ndx & 0x7fff, name);
        if ((flags & 1) === 0) out.defs.push(name); // VER_FLG_BASE names the file itself
      }
      const next = u32(def.buf, o + 16, ctx);
      if (next === 0) break;
      o += next;
    }
  }
  return out;
}

const SYMBOL_TYPES: ElfSymbol['type'][] = ['notype', 'object', 'func', 'section', 'file', 'common', 'tls'];
const BINDS: ElfSymbol['bind'][] = ['local', 'global', 'weak'];

export async function readSymbols(ctx: ElfContext, type: number, max: number, versions: Map<number, string>, dyn?: DynamicInfo): Promise<ElfSymbol[]> {
  const entsize = ctx.is64 ? 24 : 16;
  let symtab: Buffer | undefined;
  let strtab: Buffer | undefined;
  const section = ctx.sections.find((s) => s.type === type);
  if (section) {
    symtab = await readExact(ctx.src, section.offset, Math.min(section.size, max * entsize, MAX_TABLE), `section ${section.name}`);
    const linked = ctx.sections[section.link];
    strtab = linked ? await readExact(ctx.src, linked.offset, Math.min(linked.size, MAX_TABLE), `section ${linked.name}`) : Buffer.alloc(0);
  } else if (type === SHT_DYNSYM && dyn?.tags.has(DT_SYMTAB)) {
    // No sections: the count comes from DT_HASH's nchain, or the gap up to the string table that usually follows.
    const symAddr = dyn.tags.get(DT_SYMTAB)!;
    const at = vaddrToOffset(ctx.segments, symAddr);
    if (at === undefined) return [];
    let count = 0;
    const hashAddr = dyn.tags.get(DT_HASH);
    const hashAt = hashAddr !== undefined ? vaddrToOffset(ctx.segments, hashAddr) : undefined;
    if (hashAt !== undefined) count = u32(await readExact(ctx.src, hashAt, 8, 'DT_HASH'), 4, ctx);
    else if ((dyn.tags.get(DT_STRTAB) ?? 0) > symAddr) count = Math.floor((dyn.tags.get(DT_STRTAB)! - symAddr) / entsize);
    symtab = await ctx.src.read(at, Math.min(count, max) * entsize);
    strtab = dyn.strtab;
  }
  if (!symtab || !strtab) return [];
  let versym: Buffer | undefined;
  if (type === SHT_DYNSYM && versions.size > 0) versym = (await table(ctx, SHT_GNU_VERSYM, dyn, DT_VERSYM, (symtab.length / entsize) * 2))?.buf;
  const out: ElfSymbol[] = [];
  const count = Math.min(Math.floor(symtab.length / entsize), max);
  for (let i = 1; i < count; i++) {
    const o = i * entsize;
    const nameOff = u32(symtab, o, ctx);
    const info = ctx.is64 ? symtab[o + 4] : symtab[o + 12];
    const shndx = ctx.is64 ? u16(symtab, o + 6, ctx) : u16(symtab, o + 14, ctx);
    const value = ctx.is64 ? word(symtab, o + 8, ctx) : u32(symtab, o + 4, ctx);
    const size = ctx.is64 ? word(symtab, o + 16, ctx) : u32(symtab, o + 8, ctx);
    const name = cString(strtab, nameOff);
    if (name === '') continue;
    const t = info & 0xf;
    const sym: ElfSymbol = {
      name,
      index: i,
      value,
      size,
      type: t === 10 ? 'ifunc' : (SYMBOL_TYPES[t] ?? 'other'),
      bind: t === 10 && info >> 4 === 10 ? 'global' : (BINDS[info >> 4] ?? 'other'),
      defined: shndx !== 0,
    };
    if (versym && i * 2 + 2 <= versym.length) {
      const v = versions.get(u16(versym, i * 2, ctx) & 0x7fff);
      if (v !== undefined) sym.version = v;
    }
    out.push(sym);
  }
  return out;
}

/** The NT_GNU_BUILD_ID note from SHT_NOTE sections or PT_NOTE segments. */
export async function readBuildId(ctx: ElfContext): Promise<string | undefined> {
  const regions = ctx.sections.length
    ? ctx.sections.filter((s) => s.type === SHT_NOTE).map((s) => ({ offset: s.offset, size: s.size }))
    : ctx.segments.filter((s) => s.type === PT_NOTE).map((s) => ({ offset: s.offset, size: s.filesz }));
  for (const region of regions) {
    if (region.size > 1 << 16) continue;
    const notes = await readExact(ctx.src, region.offset, region.size, 'note');
    let o = 0;
    while (o + 12 <= notes.length) {
      const namesz = u32(notes, o, ctx);
      const descsz = u32(notes, o + 4, ctx);
      const type = u32(notes, o + 8, ctx);
      const nameEnd = o + 12 + namesz;
      const descAt = o + 12 + Math.ceil(namesz / 4) * 4;
      if (descAt + descsz > notes.length) break;
      if (type === 3 && notes.toString('latin1', o + 12, nameEnd).replace(/\0+$/, '') === 'GNU') {
        return notes.toString('hex', descAt, descAt + descsz);
      }
      o = descAt + Math.ceil(descsz / 4) * 4;
    }
  }
  return undefined;
}

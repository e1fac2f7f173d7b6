// ELF parser for inventory, crypto and hardening: header (class, endianness, machine), program headers, section
// headers, and through elf-dynamic.ts the dynamic section (SONAME, DT_NEEDED, RPATH), symbol versioning,
// dynamic symbols and the GNU build-id. Reads are bounded (headers and the tables needed, each capped), so it runs
// on any file of an extracted tree without loading it. Malformed headers throw FormatError; damaged optional
// tables are skipped and listed in `problems`.
//
//   const elf = await parseElf(nodeSource(index, node));            // header, sections, dynamic info
//   const elf = await parseElf(src, { symtab: true });               // also .symtab (static symbols)
//   elf.dynamicSymbols.filter((s) => !s.defined).map((s) => s.name) // imported functions
import { FormatError } from '../format-error.js';
import { readExact as readExactFrom, type ByteSource } from './byte-source.js';
import { readBuildId, readDynamic, readSymbols, readVersions } from './elf-dynamic.js';

export interface ElfSection {
  name: string;
  type: number;
  flags: number;
  addr: number;
  offset: number;
  size: number;
  link: number;
  info: number;
  entsize: number;
}

export interface ElfSegment {
  type: number;
  flags: number;
  offset: number;
  vaddr: number;
  filesz: number;
  memsz: number;
}

export interface ElfSymbol {
  name: string;
  /** Index in its symbol table (relocations refer to .dynsym entries by index). */
  index: number;
  value: number;
  size: number;
  type: 'notype' | 'object' | 'func' | 'section' | 'file' | 'common' | 'tls' | 'ifunc' | 'other';
  bind: 'local' | 'global' | 'weak' | 'other';
  /** False for undefined symbols (imports): st_shndx == SHN_UNDEF. */
  defined: boolean;
  /** Symbol version from .gnu.version, e.g. 'GLIBC_2.2.5' or 'OPENSSL_1_1_0'. */
  version?: string;
}

export interface ElfVersionNeed {
  /** The library the versions are required from, e.g. 'libc.so.6'. */
  file: string;
  versions: string[];
}

export interface ElfInfo {
  class: 32 | 64;
  endian: 'le' | 'be';
  osabi: number;
  type: 'relocatable' | 'executable' | 'shared-object' | 'core' | 'other';
  machine: number;
  /** Normalised architecture name: 'x86', 'x86_64', 'arm', 'aarch64', 'mips', 'mipsel', 'powerpc', ... */
  architecture: string;
  flags: number;
  entry: number;
  interpreter?: string;
  soname?: string;
  /** DT_NEEDED, in order. */
  needed: string[];
  rpath?: string;
  runpath?: string;
  /** Dynamic entries, tag → value (first occurrence of each tag): DT_FLAGS, DT_FLAGS_1, DT_BIND_NOW, DT_PLTGOT, ... */
  dynamicTags: Map<number, number>;
  /** .gnu.version_r: versions required per library. */
  versionNeeds: ElfVersionNeed[];
  /** .gnu.version_d: versions this object defines (version-script names), without the base (file) entry. */
  versionDefs: string[];
  dynamicSymbols: ElfSymbol[];
  /** .symtab symbols, only with `{ symtab: true }`. */
  symbols?: ElfSymbol[];
  /** GNU build-id as lower-case hex. */
  buildId?: string;
  sections: ElfSection[];
  segments: ElfSegment[];
  /** No PT_INTERP and no PT_DYNAMIC. */
  staticallyLinked: boolean;
  /** A .symtab section exists (the file is not stripped). */
  hasSymtab: boolean;
  /** Optional tables that were damaged or over a cap, skipped with a reason. */
  problems: string[];
}

export interface ElfParseOptions {
  /** Read .dynsym (default true). */
  dynamicSymbols?: boolean;
  /** Read .symtab into `symbols` (default false). */
  symtab?: boolean;
  /** Cap per symbol table (default 200,000). */
  maxSymbols?: number;
}

/** Internal view the table readers share. */
export interface ElfContext {
  src: ByteSource;
  le: boolean;
  is64: boolean;
  sections: ElfSection[];
  segments: ElfSegment[];
  problems: string[];
}

export const PT_LOAD = 1;
export const PT_DYNAMIC = 2;
export const PT_INTERP = 3;
export const PT_NOTE = 4;
export const SHT_SYMTAB = 2;
export const SHT_STRTAB = 3;
export const SHT_DYNAMIC = 6;
export const SHT_NOTE = 7;
export const SHT_NOBITS = 8;
export const SHT_DYNSYM = 11;
export const SHT_GNU_VERDEF = 0x6ffffffd;
export const SHT_GNU_VERNEED = 0x6ffffffe;
export const SHT_GNU_VERSYM = 0x6fffffff;

/** Largest single table read (string tables, symbol tables, section headers). */
export const MAX_TABLE = 32 * 1024 * 1024;
const MAX_HEADERS = 8192;

const MACHINES: Record<number, string | [string, string]> = {
  2: 'sparc',
  3: 'x86',
  4: 'm68k',
  8: ['mipsel', 'mips'],
  15: 'parisc',
  18: 'sparc',
  20: 'powerpc',
  21: ['ppc64le', 'ppc64'],
  22: 's390',
  40: ['arm', 'armeb'],
  42: 'superh',
  43: 'sparc64',
  50: 'ia64',
  62: 'x86_64',
  83: 'avr',
  92: 'openrisc',
  94: 'xtensa',
  106: 'blackfin',
  164: 'hexagon',
  183: ['aarch64', 'aarch64_be'],
  189: 'microblaze',
  195: 'arc',
  243: 'riscv',
  258: 'loongarch',
};

export function isElf(head: Buffer): boolean {
  return head.length >= 4 && head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46;
}

export function elfArchitecture(machine: number, le: boolean, is64: boolean): string {
  const entry = MACHINES[machine];
  if (entry === undefined) return `elf-machine-${machine}`;
  if (typeof entry === 'string') {
    if (machine === 243 || machine === 258) return `${entry}${is64 ? 64 : 32}`;
    return entry;
  }
  if (machine === 8 && is64) return le ? 'mips64el' : 'mips64';
  return le ? entry[0] : entry[1];
}

/** Reads exactly `length` bytes or throws FormatError naming what was being read. */
/** {@link readExactFrom} capped at this parser's largest table. */
export function readExact(src: ByteSource, offset: number, length: number, what: string): Promise<Buffer> {
  return readExactFrom(src, offset, length, what, MAX_TABLE);
}

/** The NUL-terminated string at `offset` of a string table ('' when out of range). */
export function cString(table: Buffer, offset: number): string {
  if (offset < 0 || offset >= table.length) return '';
  const end = table.indexOf(0, offset);
  return table.toString('latin1', offset, end === -1 ? table.length : end);
}

function word(buf: Buffer, at: number, le: boolean, is64: boolean): number {
  if (is64) return Number(le ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at));
  return le ? buf.readUInt32LE(at) : buf.readUInt32BE(at);
}

function u16(buf: Buffer, at: number, le: boolean): number {
  return le ? buf.readUInt16LE(at) : buf.readUInt16BE(at);
}

function u32(buf: Buffer, at: number, le: boolean): number {
  return le ? buf.readUInt32LE(at) : buf.readUInt32BE(at);
}

const TYPES: Record<number, ElfInfo['type']> = { 1: 'relocatable', 2: 'executable', 3: 'shared-object', 4: 'core' };

export async function parseElf(src: ByteSource, options: ElfParseOptions = {}): Promise<ElfInfo> {
  const ident = await src.read(0, 64);
  if (!isElf(ident)) throw new FormatError('not an ELF file (bad magic)');
  const cls = ident[4];
  const data = ident[5];
  if (cls !== 1 && cls !== 2) throw new FormatError(`invalid ELF class ${cls}`);
  if (data !== 1 && data !== 2) throw new FormatError(`invalid ELF data encoding ${data}`);
  const is64 = cls === 2;
  const le = data === 1;
  const headerSize = is64 ? 64 : 52;
  if (ident.length < headerSize) throw new FormatError(`truncated ELF header: ${ident.length} of ${headerSize} bytes`);
  const h = ident;
  const w = is64 ? 8 : 4;
  const machine = u16(h, 18, le);
  const entry = word(h, 24, le, is64);
  const phoff = word(h, 24 + w, le, is64);
  const shoff = word(h, 24 + 2 * w, le, is64);
  const at = 24 + 3 * w;
  const flags = u32(h, at, le);
  const phentsize = u16(h, at + 6, le);
  const phnum = u16(h, at + 8, le);
  const shentsize = u16(h, at + 10, le);
  let shnum = u16(h, at + 12, le);
  let shstrndx = u16(h, at + 14, le);
  const problems: string[] = [];

  const segments: ElfSegment[] = [];
  if (phnum > 0 && phoff > 0) {
    if (phentsize < (is64 ? 56 : 32) || phnum > MAX_HEADERS) throw new FormatError(`invalid program header table (entsize ${phentsize}, count ${phnum})`);
    const table = await readExact(src, phoff, phentsize * phnum, 'program headers');
    for (let i = 0; i < phnum; i++) {
      const o = i * phentsize;
      segments.push(
        is64
          ? { type: u32(table, o, le), flags: u32(table, o + 4, le), offset: word(table, o + 8, le, true), vaddr: word(table, o + 16, le, true), filesz: word(table, o + 32, le, true), memsz: word(table, o + 40, le, true) }
          : { type: u32(table, o, le), offset: u32(table, o + 4, le), vaddr: u32(table, o + 8, le), filesz: u32(table, o + 16, le), memsz: u32(table, o + 20, le), flags: u32(table, o + 24, le) },
      );
    }
  }

  const sections: ElfSection[] = [];
  if (shoff > 0 && shentsize >= (is64 ? 64 : 40)) {
    try {
      // Extended numbering: counts above 0xff00 live in section 0.
      if (shnum === 0 || shstrndx === 0xffff) {
        const first = await readExact(src, shoff, shentsize, 'section header 0');
        if (shnum === 0) shnum = Number(word(first, is64 ? 32 : 20, le, is64));
        if (shstrndx === 0xffff) shstrndx = u32(first, is64 ? 44 : 28, le);
      }
      if (shnum > MAX_HEADERS) throw new FormatError(`${shnum} section headers exceeds the cap of ${MAX_HEADERS}`);
      const table = await readExact(src, shoff, shentsize * shnum, 'section headers');
      for (let i = 0; i < shnum; i++) {
        const o = i * shentsize;
        sections.push({
          name: String(u32(table, o, le)),
          type: u32(table, o + 4, le),
          flags: word(table, o + 8, le, is64),
          addr: word(table, o + 8 + w, le, is64),
          offset: word(table, o + 8 + 2 * w, le, is64),
          size: word(table, o + 8 + 3 * w, le, is64),
          link: u32(table, o + 8 + 4 * w, le),
          info: u32(table, o + 12 + 4 * w, le),
          entsize: word(table, o + 16 + 5 * w, le, is64),
        });
      }
      const names = sections[shstrndx];
      const nameTable = names && names.type !== SHT_NOBITS ? await readExact(src, names.offset, Math.min(names.size, 1 << 20), 'section name table') : Buffer.alloc(0);
      for (const s of sections) s.name = cString(nameTable, Number(s.name));
    } catch (err) {
      if (!(err instanceof FormatError)) throw err;
      problems.push(`section headers skipped: ${err.message}`);
      sections.length = 0;
    }
  }

  const ctx: ElfContext = { src, le, is64, sections, segments, problems };
  const info: ElfInfo = {
    class: is64 ? 64 : 32,
    endian: le ? 'le' : 'be',
    osabi: h[7],
    type: TYPES[u16(h, 16, le)] ?? 'other',
    machine,
    architecture: elfArchitecture(machine, le, is64),
    flags,
    entry,
    needed: [],
    dynamicTags: new Map(),
    versionNeeds: [],
    versionDefs: [],
    dynamicSymbols: [],
    sections,
    segments,
    staticallyLinked: !segments.some((s) => s.type === PT_INTERP || s.type === PT_DYNAMIC),
    hasSymtab: sections.some((s) => s.type === SHT_SYMTAB),
    problems,
  };

  const interp = segments.find((s) => s.type === PT_INTERP);
  if (interp && interp.filesz > 0 && interp.filesz < 4096) {
    await guard(problems, 'interpreter', async () => {
      info.interpreter = cString(await readExact(src, interp.offset, interp.filesz, 'interpreter'), 0);
    });
  }
  let dynamic: Awaited<ReturnType<typeof readDynamic>> | undefined;
  await guard(problems, 'dynamic section', async () => {
    dynamic = await readDynamic(ctx);
    if (!dynamic) return;
    info.needed = dynamic.needed;
    info.dynamicTags = dynamic.tags;
    if (dynamic.soname !== undefined) info.soname = dynamic.soname;
    if (dynamic.rpath !== undefined) info.rpath = dynamic.rpath;
    if (dynamic.runpath !== undefined) info.runpath = dynamic.runpath;
  });
  let versionNames = new Map<number, string>();
  await guard(problems, 'symbol versions', async () => {
    const v = await readVersions(ctx, dynamic);
    info.versionNeeds = v.needs;
    info.versionDefs = v.defs;
    versionNames = v.names;
  });
  if (options.dynamicSymbols !== false) {
    await guard(problems, 'dynamic symbols', async () => {
      info.dynamicSymbols = await readSymbols(ctx, SHT_DYNSYM, options.maxSymbols ?? 200_000, versionNames, dynamic);
    });
  }
  if (options.symtab) {
    await guard(problems, 'symbol table', async () => {
      info.symbols = await readSymbols(ctx, SHT_SYMTAB, options.maxSymbols ?? 200_000, new Map());
    });
  }
  await guard(problems, 'build-id', async () => {
    const id = await readBuildId(ctx);
    if (id) info.buildId = id;
  });
  return info;
}

/** Runs an optional-table reader; a FormatError becomes a problem note, anything else propagates. */
async function guard(problems: string[], what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof FormatError) && !(err instanceof RangeError)) throw err;
    problems.push(`${what} skipped: ${err.message}`);
  }
}

/** Reads a section's bytes (capped at `max`); empty for SHT_NOBITS. */
export async function readSection(src: ByteSource, section: ElfSection, max = MAX_TABLE): Promise<Buffer> {
  if (section.type === SHT_NOBITS || section.size === 0) return Buffer.alloc(0);
  return readExact(src, section.offset, Math.min(section.size, max), `section ${section.name}`);
}

/** File offset of a virtual address, through the PT_LOAD segments (undefined when unmapped). */
export function vaddrToOffset(segments: ElfSegment[], vaddr: number): number | undefined {
  for (const s of segments) {
    if (s.type === PT_LOAD && vaddr >= s.vaddr && vaddr < s.vaddr + s.filesz) return s.offset + (vaddr - s.vaddr);
  }
  return undefined;
}

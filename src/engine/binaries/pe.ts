// PE/COFF (and UEFI TE) parser for inventory and hardening: machine, subsystem, sections, imports, the
// VS_VERSIONINFO resource (pe-version.ts) and the CodeView PDB path. Bounded reads only; malformed headers
// throw FormatError, damaged optional tables are skipped and listed in `problems`.
//
//   const pe = await parsePe(nodeSource(index, node));
//   pe.version?.strings.ProductVersion; pe.imports.map((i) => i.dll)
import { FormatError } from '../format-error.js';
import { readExact as readExactFrom, type ByteSource } from './byte-source.js';
import { readVersionInfo, type PeVersionInfo } from './pe-version.js';

export interface PeSection {
  name: string;
  virtualAddress: number;
  virtualSize: number;
  rawOffset: number;
  rawSize: number;
  characteristics: number;
}

export interface PeImport {
  dll: string;
  /** Imported function names; ordinals as '#123'. */
  functions: string[];
  /** RVA of each function's IAT slot (parallel to `functions`): where `call [slot]` and import thunks read it. */
  slots: number[];
}

export interface PeDataDirectory {
  /** RVA, except for the security directory (index 4), whose value is a file offset. */
  rva: number;
  size: number;
}

export interface PeInfo {
  /** 'pe' for PE32/PE32+, 'te' for the UEFI Terse Executable header. */
  format: 'pe' | 'te';
  machine: number;
  /** Normalised: 'x86', 'x86_64', 'arm', 'aarch64', 'ia64', 'ebc', 'riscv64', ... */
  architecture: string;
  is64: boolean;
  /** COFF characteristics (0x2000 = DLL). */
  characteristics: number;
  isDll: boolean;
  timestamp?: number;
  subsystem: number;
  dllCharacteristics?: number;
  entryPoint: number;
  /** Preferred load address (0 for TE images, whose header does not keep it). */
  imageBase: number;
  /** The optional header's data directories (export, import, resource, exception, security, ..., load config at 10). */
  directories: PeDataDirectory[];
  sections: PeSection[];
  imports: PeImport[];
  /** Exported function names (ordinal-only exports as '#123'). */
  exports: string[];
  version?: PeVersionInfo;
  /** CodeView debug record path (the PDB or, for EDK II modules, the .dll build path). */
  pdbPath?: string;
  /** The RSDS record's PDB GUID (16 bytes as hex, file order) and age: what matches the image's PDB. */
  pdbId?: { guid: string; age: number };
  problems: string[];
}

const MACHINES: Record<number, string> = {
  0x14c: 'x86',
  0x8664: 'x86_64',
  0x1c0: 'arm',
  0x1c2: 'arm',
  0x1c4: 'arm',
  0xaa64: 'aarch64',
  0x200: 'ia64',
  0xebc: 'ebc',
  0x166: 'mipsel',
  0x169: 'mipsel',
  0x5032: 'riscv32',
  0x5064: 'riscv64',
  0x6264: 'loongarch64',
};

const MAX_TABLE = 16 * 1024 * 1024;

export function isPe(head: Buffer): boolean {
  return head.length >= 2 && ((head[0] === 0x4d && head[1] === 0x5a) || (head[0] === 0x56 && head[1] === 0x5a));
}

/** {@link readExactFrom} capped at this parser's largest table. */
function readExact(src: ByteSource, offset: number, length: number, what: string): Promise<Buffer> {
  return readExactFrom(src, offset, length, what, MAX_TABLE);
}

export function cStringAt(buf: Buffer, at: number, max = 512): string {
  if (at < 0 || at >= buf.length) return '';
  const end = buf.indexOf(0, at);
  return buf.toString('latin1', at, Math.min(end === -1 ? buf.length : end, at + max));
}

/** Maps an RVA to a file offset through the section table (TE images shift by `delta`). */
export function rvaToOffset(sections: PeSection[], rva: number, delta = 0): number | undefined {
  for (const s of sections) {
    const span = Math.max(s.virtualSize, s.rawSize);
    if (rva >= s.virtualAddress && rva < s.virtualAddress + span) {
      const inside = rva - s.virtualAddress;
      if (inside >= s.rawSize) return undefined;
      return s.rawOffset + inside - delta;
    }
  }
  return undefined;
}

export function readSections(buf: Buffer, at: number, count: number): PeSection[] {
  const out: PeSection[] = [];
  for (let i = 0; i < count; i++) {
    const o = at + i * 40;
    out.push({
      name: cStringAt(buf, o, 8),
      virtualSize: buf.readUInt32LE(o + 8),
      virtualAddress: buf.readUInt32LE(o + 12),
      rawSize: buf.readUInt32LE(o + 16),
      rawOffset: buf.readUInt32LE(o + 20),
      characteristics: buf.readUInt32LE(o + 36),
    });
  }
  return out;
}

/** The headers of an MZ/PE image up to its section table: what parsePe builds on, and all a section reader needs. */
interface PeLayout {
  coff: Buffer;
  opt: Buffer;
  is64: boolean;
  dirs: Array<{ rva: number; size: number }>;
  sections: PeSection[];
}

async function readLayout(src: ByteSource, head: Buffer): Promise<PeLayout> {
  if (head.length < 64 || head[0] !== 0x4d || head[1] !== 0x5a) throw new FormatError('not a PE file (no MZ header)');
  const peAt = head.readUInt32LE(0x3c);
  if (peAt < 4 || peAt > 0x10000000) throw new FormatError(`e_lfanew ${peAt} out of bounds`);
  const coff = await readExact(src, peAt, 24, 'PE header');
  if (coff.readUInt32LE(0) !== 0x00004550) throw new FormatError('missing PE\\0\\0 signature');
  const nsections = coff.readUInt16LE(6);
  const optSize = coff.readUInt16LE(20);
  if (nsections > 96) throw new FormatError(`${nsections} sections exceeds the PE limit of 96`);
  const opt = await readExact(src, peAt + 24, optSize, 'optional header');
  if (optSize < 2) throw new FormatError('missing optional header');
  const magic = opt.readUInt16LE(0);
  if (magic !== 0x10b && magic !== 0x20b) throw new FormatError(`unknown optional header magic 0x${magic.toString(16)}`);
  const is64 = magic === 0x20b;
  if (optSize < (is64 ? 112 : 96)) throw new FormatError(`optional header too short (${optSize} bytes)`);
  const dirCount = Math.min(opt.readUInt32LE(is64 ? 108 : 92), 16, Math.floor((optSize - (is64 ? 112 : 96)) / 8));
  const dirs: Array<{ rva: number; size: number }> = [];
  for (let i = 0; i < dirCount; i++) {
    const o = (is64 ? 112 : 96) + i * 8;
    dirs.push({ rva: opt.readUInt32LE(o), size: opt.readUInt32LE(o + 4) });
  }
  const sectionTable = await readExact(src, peAt + 24 + optSize, nsections * 40, 'section table');
  return { coff, opt, is64, dirs, sections: readSections(sectionTable, 0, nsections) };
}

/** The section table of an MZ/PE image alone, without its imports, exports or resources (a TE image has none to give). */
export async function readPeSections(src: ByteSource): Promise<PeSection[]> {
  return (await readLayout(src, await src.read(0, 64))).sections;
}

export async function parsePe(src: ByteSource): Promise<PeInfo> {
  const head = await src.read(0, 64);
  if (head.length >= 40 && head[0] === 0x56 && head[1] === 0x5a) return parseTe(src, head);
  const { coff, opt, is64, dirs, sections } = await readLayout(src, head);
  const machine = coff.readUInt16LE(4);
  const characteristics = coff.readUInt16LE(22);
  const info: PeInfo = {
    format: 'pe',
    machine,
    architecture: MACHINES[machine] ?? `pe-machine-0x${machine.toString(16)}`,
    is64,
    characteristics,
    isDll: (characteristics & 0x2000) !== 0,
    timestamp: coff.readUInt32LE(8),
    subsystem: opt.readUInt16LE(68),
    dllCharacteristics: opt.readUInt16LE(70),
    entryPoint: opt.readUInt32LE(16),
    imageBase: is64 ? Number(opt.readBigUInt64LE(24)) : opt.readUInt32LE(28),
    directories: dirs,
    sections,
    imports: [],
    exports: [],
    problems: [],
  };
  await guard(info, 'exports', async () => {
    if (dirs[0]?.rva) info.exports = await readExports(src, sections, dirs[0].rva);
  });
  await guard(info, 'imports', async () => {
    if (dirs[1]?.rva) info.imports = await readImports(src, sections, dirs[1].rva, is64);
  });
  await guard(info, 'version resource', async () => {
    if (dirs[2]?.rva) {
      const version = await readVersionInfo(src, (rva) => rvaToOffset(sections, rva), dirs[2].rva, dirs[2].size);
      if (version) info.version = version;
    }
  });
  await guard(info, 'debug directory', async () => {
    if (dirs[6]?.rva) {
      const cv = await readCodeView(src, (rva) => rvaToOffset(sections, rva), dirs[6].rva, dirs[6].size);
      if (cv?.path) info.pdbPath = cv.path;
      if (cv?.id) info.pdbId = cv.id;
    }
  });
  return info;
}

/** UEFI Terse Executable: a 40-byte header replacing the DOS/PE/optional headers, offsets shifted by StrippedSize. */
async function parseTe(src: ByteSource, head: Buffer): Promise<PeInfo> {
  const machine = head.readUInt16LE(2);
  const nsections = head[4];
  const stripped = head.readUInt16LE(6);
  const delta = stripped - 40;
  const sections = readSections(await readExact(src, 40, nsections * 40, 'TE section table'), 0, nsections);
  const info: PeInfo = {
    format: 'te',
    machine,
    architecture: MACHINES[machine] ?? `pe-machine-0x${machine.toString(16)}`,
    is64: machine === 0x8664 || machine === 0xaa64 || machine === 0x5064 || machine === 0x200,
    characteristics: 0,
    isDll: false,
    subsystem: head[5],
    entryPoint: head.readUInt32LE(8),
    imageBase: 0,
    directories: [],
    sections,
    imports: [],
    exports: [],
    problems: [],
  };
  const debugRva = head.readUInt32LE(32);
  const debugSize = head.readUInt32LE(36);
  await guard(info, 'debug directory', async () => {
    if (debugRva) {
      const cv = await readCodeView(src, (rva) => rvaToOffset(sections, rva, delta), debugRva, debugSize, delta);
      if (cv?.path) info.pdbPath = cv.path;
      if (cv?.id) info.pdbId = cv.id;
    }
  });
  return info;
}

async function guard(info: PeInfo, what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof FormatError) && !(err instanceof RangeError)) throw err;
    info.problems.push(`${what} skipped: ${err.message}`);
  }
}

async function readImports(src: ByteSource, sections: PeSection[], rva: number, is64: boolean): Promise<PeImport[]> {
  const at = rvaToOffset(sections, rva);
  if (at === undefined) throw new FormatError(`import directory RVA 0x${rva.toString(16)} is not mapped`);
  const section = sections.find((s) => rva >= s.virtualAddress && rva < s.virtualAddress + Math.max(s.virtualSize, s.rawSize))!;
  // Import names and thunks normally live in the same section as the directory: read it once (bounded).
  const base = section.rawOffset;
  const data = await src.read(base, Math.min(section.rawSize, MAX_TABLE));
  const local = (r: number): number | undefined => {
    const off = rvaToOffset(sections, r);
    return off !== undefined && off >= base && off < base + data.length ? off - base : undefined;
  };
  const out: PeImport[] = [];
  for (let d = at - base; d + 20 <= data.length && out.length < 1024; d += 20) {
    const lookup = data.readUInt32LE(d) || data.readUInt32LE(d + 16);
    const nameRva = data.readUInt32LE(d + 12);
    if (lookup === 0 && nameRva === 0) break;
    const nameAt = local(nameRva);
    const entry: PeImport = { dll: nameAt === undefined ? '' : cStringAt(data, nameAt), functions: [], slots: [] };
    const firstThunk = data.readUInt32LE(d + 16);
    let thunk = local(lookup);
    const step = is64 ? 8 : 4;
    for (let k = 0; thunk !== undefined && thunk + step <= data.length && entry.functions.length < 8192; k++) {
      const value = is64 ? data.readBigUInt64LE(thunk) : BigInt(data.readUInt32LE(thunk));
      if (value === 0n) break;
      const ordinalFlag = is64 ? 1n << 63n : 1n << 31n;
      let name: string | undefined;
      if (value & ordinalFlag) name = `#${Number(value & 0xffffn)}`;
      else {
        const hint = local(Number(value & 0x7fffffffn));
        if (hint !== undefined) name = cStringAt(data, hint + 2);
      }
      if (name !== undefined) {
        entry.functions.push(name);
        entry.slots.push(firstThunk + k * step);
      }
      thunk += step;
    }
    if (entry.dll) out.push(entry);
  }
  return out;
}

/** Export names from the export directory: named exports by name, the others as '#ordinal'. */
async function readExports(src: ByteSource, sections: PeSection[], rva: number): Promise<string[]> {
  const at = rvaToOffset(sections, rva);
  if (at === undefined) throw new FormatError(`export directory RVA 0x${rva.toString(16)} is not mapped`);
  const dir = await readExact(src, at, 40, 'export directory');
  const base = dir.readUInt32LE(16);
  const functionCount = Math.min(dir.readUInt32LE(20), 65536);
  const nameCount = Math.min(dir.readUInt32LE(24), functionCount);
  const named = new Set<number>();
  const out: string[] = [];
  const namesAt = rvaToOffset(sections, dir.readUInt32LE(32));
  const ordinalsAt = rvaToOffset(sections, dir.readUInt32LE(36));
  if (nameCount > 0 && namesAt !== undefined && ordinalsAt !== undefined) {
    const names = await readExact(src, namesAt, nameCount * 4, 'export name table');
    const ordinals = await readExact(src, ordinalsAt, nameCount * 2, 'export ordinal table');
    for (let i = 0; i < nameCount; i++) {
      named.add(ordinals.readUInt16LE(i * 2));
      const nameAt = rvaToOffset(sections, names.readUInt32LE(i * 4));
      if (nameAt !== undefined) out.push(cStringAt(await src.read(nameAt, 512), 0));
    }
  }
  const addressesAt = rvaToOffset(sections, dir.readUInt32LE(28));
  if (addressesAt !== undefined && functionCount > 0) {
    const addresses = await readExact(src, addressesAt, functionCount * 4, 'export address table');
    for (let i = 0; i < functionCount; i++) if (!named.has(i) && addresses.readUInt32LE(i * 4) !== 0) out.push(`#${base + i}`);
  }
  return out;
}

async function readCodeView(src: ByteSource, map: (rva: number) => number | undefined, rva: number, size: number, delta = 0): Promise<{ path: string; id?: { guid: string; age: number } } | undefined> {
  const at = map(rva);
  if (at === undefined) return undefined;
  const dir = await readExact(src, at, Math.min(size, 28 * 32), 'debug directory');
  for (let o = 0; o + 28 <= dir.length; o += 28) {
    if (dir.readUInt32LE(o + 12) !== 2) continue; // IMAGE_DEBUG_TYPE_CODEVIEW
    const len = Math.min(dir.readUInt32LE(o + 16), 4096);
    const raw = dir.readUInt32LE(o + 24) - delta;
    const cv = await readExact(src, raw, len, 'CodeView record');
    const sig = cv.toString('latin1', 0, 4);
    if (sig === 'RSDS' && cv.length >= 24) return { path: cStringAt(cv, 24, 4096), id: { guid: cv.toString('hex', 4, 20), age: cv.readUInt32LE(20) } };
    if (sig === 'NB10') return { path: cStringAt(cv, 16, 4096) };
    if (sig === 'MTOC') return { path: cStringAt(cv, 20, 4096) };
  }
  return undefined;
}

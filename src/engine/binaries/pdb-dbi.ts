// The DBI stream of a PDB (stream 3): its header names the other streams (publics, symbol records), then come
// substreams in a fixed order: module info, section contributions, section map, file info, type server map,
// EC, and the optional debug header whose sixth entry is the stream holding the image's section headers.
// Reference: LLVM's "The PDB DBI Stream" (llvm.org/docs/PDB/DbiStream.html).
import { FormatError } from '../format-error.js';
import { u16At, u32At } from './pdb-msf.js';

export interface PdbModule {
  /** The object file or import library member ('/tmp/a.o', 'Import:KERNEL32.dll', '* Linker *'). */
  name: string;
  objectFile: string;
  /** Stream of the module's own symbols (0xffff when none). */
  symbolStream: number;
}

/** A run of bytes of an image section that one module contributed. */
export interface PdbSectionContribution {
  /** 1-based section number. */
  section: number;
  offset: number;
  size: number;
  characteristics: number;
  /** Index in `modules`. */
  module: number;
}

export interface PdbDbi {
  age: number;
  machine: number;
  publicStream: number;
  symbolRecordStream: number;
  /** Stream holding the image's IMAGE_SECTION_HEADERs (undefined when the PDB has none). */
  sectionHeaderStream?: number;
  modules: PdbModule[];
  contributions: PdbSectionContribution[];
}

const HEADER_SIZE = 64;
const NO_STREAM = 0xffff;
const CONTRIBUTIONS_V60 = 0xeffe0000 + 19970605;
const CONTRIBUTIONS_V2 = 0xeffe0000 + 20140516;
const MAX_MODULES = 1 << 16;
const MAX_CONTRIBUTIONS = 1 << 20;

function cStringIn(buf: Buffer, at: number, end: number, what: string): { text: string; next: number } {
  const nul = buf.indexOf(0, at);
  if (nul < 0 || nul >= end) throw new FormatError(`${what}: unterminated name`);
  return { text: buf.toString('utf8', at, nul), next: nul + 1 };
}

function readModules(dbi: Buffer, start: number, size: number): PdbModule[] {
  const end = start + size;
  const modules: PdbModule[] = [];
  let at = start;
  while (at + 64 <= end) {
    if (modules.length >= MAX_MODULES) throw new FormatError(`DBI stream: more than ${MAX_MODULES} modules`);
    const symbolStream = dbi.readUInt16LE(at + 34);
    const name = cStringIn(dbi, at + 64, end, 'DBI module info');
    const objectFile = cStringIn(dbi, name.next, end, 'DBI module info');
    modules.push({ name: name.text, objectFile: objectFile.text, symbolStream });
    at = (objectFile.next + 3) & ~3;
  }
  return modules;
}

function readContributions(dbi: Buffer, start: number, size: number, modules: number): PdbSectionContribution[] {
  if (size < 4) return [];
  const version = dbi.readUInt32LE(start);
  const entry = version === CONTRIBUTIONS_V2 ? 32 : version === CONTRIBUTIONS_V60 ? 28 : 0;
  if (!entry) throw new FormatError(`DBI section contributions: unknown version 0x${version.toString(16)}`);
  const count = Math.floor((size - 4) / entry);
  if (count > MAX_CONTRIBUTIONS) throw new FormatError(`DBI section contributions: ${count} entries exceeds the cap`);
  const out: PdbSectionContribution[] = [];
  for (let i = 0; i < count; i++) {
    const o = start + 4 + i * entry;
    const module = dbi.readUInt16LE(o + 16);
    if (module >= modules) throw new FormatError(`DBI section contribution ${i} names module ${module} of ${modules}`);
    out.push({ section: dbi.readUInt16LE(o), offset: dbi.readInt32LE(o + 4), size: dbi.readInt32LE(o + 8), characteristics: dbi.readUInt32LE(o + 12), module });
  }
  return out;
}

export function parseDbi(dbi: Buffer): PdbDbi {
  if (dbi.length < HEADER_SIZE) throw new FormatError(`DBI stream truncated: ${dbi.length} of ${HEADER_SIZE} header bytes`);
  if (dbi.readInt32LE(0) !== -1) throw new FormatError('DBI stream: bad version signature (not a PDB 7 DBI stream)');
  const sizes = [24, 28, 32, 36, 40, 52, 48].map((o) => dbi.readInt32LE(o)); // in substream order (EC before optional header)
  if (sizes.some((s) => s < 0)) throw new FormatError('DBI stream: negative substream size');
  const total = sizes.reduce((a, b) => a + b, HEADER_SIZE);
  if (total > dbi.length) throw new FormatError(`DBI stream truncated: substreams need ${total} bytes, the stream has ${dbi.length}`);
  const starts: number[] = [];
  let at = HEADER_SIZE;
  for (const s of sizes) {
    starts.push(at);
    at += s;
  }
  const [moduleSize, contributionSize, , , , , optionalSize] = sizes as [number, number, number, number, number, number, number];
  const modules = readModules(dbi, starts[0]!, moduleSize);
  const contributions = readContributions(dbi, starts[1]!, contributionSize, modules.length);
  const optional = dbi.subarray(starts[6]!, starts[6]! + optionalSize);
  const sectionHeaders = optional.length >= 12 ? u16At(optional, 10, 'DBI optional debug header') : NO_STREAM;
  const result: PdbDbi = {
    age: u32At(dbi, 8, 'DBI header'),
    machine: dbi.readUInt16LE(58),
    publicStream: dbi.readUInt16LE(16),
    symbolRecordStream: dbi.readUInt16LE(20),
    modules,
    contributions,
  };
  if (sectionHeaders !== NO_STREAM) result.sectionHeaderStream = sectionHeaders;
  return result;
}

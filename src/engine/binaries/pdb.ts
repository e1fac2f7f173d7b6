// A PDB (Microsoft program database) read for what names a PE's functions: the PDB info stream (GUID and age,
// which the PE's CodeView RSDS record repeats, so a PDB is matched to its image), the DBI stream's modules and
// section contributions (pdb-dbi.ts), the public symbols (S_PUB32: name, section, offset, reached through the
// publics stream's address map into the symbol record stream) and the section headers stream that turns
// section:offset into an RVA. Malformed input throws FormatError (pdb-msf.ts checks every block and stream).
//
//   const pdb = parsePdb(buf); pdb.publics.filter((p) => p.function).map((p) => [p.rva, p.name])
import { FormatError } from '../format-error.js';
import { parseDbi, type PdbModule, type PdbSectionContribution } from './pdb-dbi.js';
import { parseMsf, u16At, u32At } from './pdb-msf.js';
import { type PeSection, readSections } from './pe.js';

export interface PdbPublic {
  name: string;
  /** 1-based section number and offset inside it. */
  section: number;
  offset: number;
  /** section:offset as an RVA through the section headers (undefined when the section is unknown). */
  rva?: number;
  /** Flagged a function (CVPSF_FUNCTION), or in an executable section. */
  function: boolean;
}

export interface PdbInfo {
  /** The 16 GUID bytes as lower-case hex, in file order (as the RSDS record stores them). */
  guid: string;
  /** Age of the PDB info stream. */
  age: number;
  /** Age of the DBI stream, which the image's RSDS record repeats (the info stream's may be higher). */
  dbiAge: number;
  machine: number;
  modules: PdbModule[];
  contributions: PdbSectionContribution[];
  sections: PeSection[];
  publics: PdbPublic[];
}

const INFO_STREAM = 1;
const DBI_STREAM = 3;
const S_PUB32 = 0x110e;
const CVPSF_FUNCTION = 2;
const PUBLICS_HEADER = 28;
const IMAGE_SCN_MEM_EXECUTE = 0x20000000;
const MAX_PUBLICS = 1 << 21;

/** The PDB's GUID and age (PE match key) from the PDB info stream. */
function readInfo(stream: Buffer): { guid: string; age: number } {
  if (stream.length < 28) throw new FormatError(`PDB info stream truncated (${stream.length} of 28 bytes)`);
  return { age: stream.readUInt32LE(8), guid: stream.toString('hex', 12, 28) };
}

/** S_PUB32 records named by the publics stream's address map (offsets into the symbol record stream). */
function readPublics(publics: Buffer, records: Buffer): Array<Omit<PdbPublic, 'rva' | 'function'> & { flags: number }> {
  const hashBytes = u32At(publics, 0, 'PDB publics header');
  const mapBytes = u32At(publics, 4, 'PDB publics header');
  const mapAt = PUBLICS_HEADER + hashBytes;
  if (mapAt + mapBytes > publics.length) throw new FormatError(`PDB publics stream truncated: its address map ends at ${mapAt + mapBytes}, the stream has ${publics.length} bytes`);
  const count = Math.floor(mapBytes / 4);
  if (count > MAX_PUBLICS) throw new FormatError(`PDB publics: ${count} symbols exceeds the cap`);
  const out: Array<Omit<PdbPublic, 'rva' | 'function'> & { flags: number }> = [];
  for (let i = 0; i < count; i++) {
    const at = publics.readUInt32LE(mapAt + i * 4);
    const length = u16At(records, at, 'PDB symbol record');
    if (length < 12 || at + 2 + length > records.length) throw new FormatError(`PDB symbol record at ${at}: length ${length} out of bounds`);
    if (records.readUInt16LE(at + 2) !== S_PUB32) continue;
    const end = at + 2 + length;
    const nul = records.indexOf(0, at + 14);
    out.push({
      flags: records.readUInt32LE(at + 4),
      offset: records.readUInt32LE(at + 8),
      section: records.readUInt16LE(at + 12),
      name: records.toString('utf8', at + 14, nul < 0 || nul > end ? end : nul),
    });
  }
  return out;
}

/** `fallbackSections` (the PE's own) map section:offset when the PDB keeps no section headers stream. */
export function parsePdb(buf: Buffer, fallbackSections: PeSection[] = []): PdbInfo {
  const msf = parseMsf(buf);
  const info = readInfo(msf.stream(INFO_STREAM));
  const dbi = parseDbi(msf.stream(DBI_STREAM));
  let sections = fallbackSections;
  if (dbi.sectionHeaderStream !== undefined) {
    const raw = msf.stream(dbi.sectionHeaderStream);
    sections = readSections(raw, 0, Math.floor(raw.length / 40));
  }
  const publics = readPublics(msf.stream(dbi.publicStream), msf.stream(dbi.symbolRecordStream)).map(({ flags, ...p }): PdbPublic => {
    const section = sections[p.section - 1];
    const executable = section !== undefined && (section.characteristics & IMAGE_SCN_MEM_EXECUTE) !== 0;
    return { ...p, ...(section && { rva: section.virtualAddress + p.offset }), function: (flags & CVPSF_FUNCTION) !== 0 || executable };
  });
  return { ...info, dbiAge: dbi.age, machine: dbi.machine, modules: dbi.modules, contributions: dbi.contributions, sections, publics };
}

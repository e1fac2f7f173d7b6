// Debug files attached to an image (ScanOptions.debugFiles), read once per scan and matched to its binaries:
//   ELF debug files (`objcopy --only-keep-debug` output, or any ELF with a build-id note) by GNU build-id; their
//     .symtab names the functions of a stripped binary, or, without one, the DWARF subprograms (dwarf.ts).
//   PDBs by the GUID and age of the PE's CodeView RSDS record; their public symbols name the functions.
// A file that is neither, cannot be read, or matches no binary of the image is a 'warning' problem naming it:
// the scan goes on without it. Compressed DWARF sections (SHF_COMPRESSED, zlib or zstd) are read; GNU's older
// .zdebug_* sections are not.
import { readFile, stat } from 'node:fs/promises';
import type { Problem } from '../types.js';
import { FormatError } from '../format-error.js';
import { bufferSource } from './byte-source.js';
import { dwarfFunctions } from './dwarf.js';
import { readDebugSection } from './debug-sections.js';
import { type ElfInfo, type ElfSymbol, isElf, parseElf } from './elf.js';
import { isPdb } from './pdb-msf.js';
import { type PdbInfo, parsePdb } from './pdb.js';

export interface DebugFileInput {
  /** Local path of the file. */
  path: string;
  /** Its name as attached (problems name the file by it). */
  name: string;
}

/** Where a binary's function names came from. */
export type SymbolSource = 'symtab' | 'pdb' | 'dwarf' | 'none';

export interface ElfDebugSymbols {
  /** The debug file's name, and its path (unique). */
  file: string;
  path: string;
  source: 'symtab' | 'dwarf';
  /** Function symbols, addresses as in the binary. */
  symbols: ElfSymbol[];
}

export interface PdbDebugSymbols {
  file: string;
  path: string;
  pdb: PdbInfo;
}

/** Larger debug files are not read (a problem says so). */
const MAX_DEBUG_FILE = 512 * 1024 * 1024;

function isFunction(s: ElfSymbol): boolean {
  return s.defined && (s.type === 'func' || s.type === 'ifunc') && s.value !== 0;
}

/** DWARF subprograms as function symbols, or a reason why there are none. */
async function dwarfSymbols(elf: ElfInfo, buf: Buffer): Promise<ElfSymbol[] | string> {
  const section = (name: string) => elf.sections.find((s) => s.name === name);
  const info = section('.debug_info');
  if (!info) return elf.sections.some((s) => s.name === '.zdebug_info') ? 'its DWARF is in compressed .zdebug sections, which are not read' : 'it has neither a .symtab nor DWARF .debug_info';
  const read = async (name: string) => {
    const s = section(name);
    return s ? readDebugSection(elf, buf, s) : undefined;
  };
  const abbrev = await read('.debug_abbrev');
  if (!abbrev) return 'its .debug_info has no .debug_abbrev';
  const functions = dwarfFunctions({
    info: await readDebugSection(elf, buf, info), abbrev, str: await read('.debug_str'), lineStr: await read('.debug_line_str'),
    strOffsets: await read('.debug_str_offsets'), addr: await read('.debug_addr'), le: elf.endian === 'le',
  });
  return functions.map((f, index) => ({ name: f.name, index, value: f.address, size: 0, type: 'func', bind: 'global', defined: true }));
}

/** The debug files of one scan, keyed for matching; records which ones a binary used. */
export class DebugSymbolIndex {
  private readonly elfByBuildId = new Map<string, ElfDebugSymbols>();
  private readonly pdbById = new Map<string, PdbDebugSymbols>();
  private readonly matched = new Set<string>();
  /** File path → its name and what it would have matched, for the unmatched-file problem. */
  private readonly keys = new Map<string, { name: string; key: string }>();

  /** Reads every file; unreadable ones become problems. */
  static async load(files: DebugFileInput[], problems: Problem[], signal?: AbortSignal): Promise<DebugSymbolIndex> {
    const index = new DebugSymbolIndex();
    for (const file of files) {
      signal?.throwIfAborted();
      try {
        await index.add(file, problems);
      } catch (error) {
        if (!(error instanceof FormatError) && !(error instanceof RangeError)) throw error;
        problems.push({ path: file.name, source: 'debug-files', kind: 'warning', message: `debug file not read: ${error.message}` });
      }
    }
    return index;
  }

  private async add(file: DebugFileInput, problems: Problem[]): Promise<void> {
    const warn = (message: string) => problems.push({ path: file.name, source: 'debug-files', kind: 'warning', message });
    const { size } = await stat(file.path);
    if (size > MAX_DEBUG_FILE) return void warn(`debug file not read: ${size} bytes exceeds the ${MAX_DEBUG_FILE}-byte limit`);
    const buf = await readFile(file.path);
    if (isPdb(buf)) {
      const pdb = parsePdb(buf);
      // Linkers write the same age in the info and DBI streams; where they differ (incremental links), the
      // image's RSDS record has been seen to carry either, so both match.
      const entry = { file: file.name, path: file.path, pdb };
      for (const age of new Set([pdb.dbiAge, pdb.age])) this.pdbById.set(`${pdb.guid}:${age}`, entry);
      this.keys.set(file.path, { name: file.name, key: `PDB GUID ${pdb.guid}, age ${pdb.dbiAge}` });
      return;
    }
    if (!isElf(buf)) return void warn('debug file not read: it is neither an ELF file nor a PDB');
    const elf = await parseElf(bufferSource(buf), { symtab: true, dynamicSymbols: false });
    if (!elf.buildId) return void warn('ELF debug file has no GNU build-id note, so it cannot be matched to a binary');
    const own = (elf.symbols ?? []).filter(isFunction);
    let entry: ElfDebugSymbols;
    if (own.length) entry = { file: file.name, path: file.path, source: 'symtab', symbols: elf.symbols! };
    else {
      const dwarf = await dwarfSymbols(elf, buf);
      if (typeof dwarf === 'string') return void warn(`ELF debug file names no functions: ${dwarf}`);
      entry = { file: file.name, path: file.path, source: 'dwarf', symbols: dwarf };
    }
    this.elfByBuildId.set(elf.buildId, entry);
    this.keys.set(file.path, { name: file.name, key: `build-id ${elf.buildId}` });
  }

  get size(): number {
    return this.keys.size;
  }

  /** The debug symbols of the ELF binary with this build-id (marks the file matched). */
  elf(buildId: string | undefined): ElfDebugSymbols | undefined {
    const entry = buildId === undefined ? undefined : this.elfByBuildId.get(buildId);
    if (entry) this.matched.add(entry.path);
    return entry;
  }

  /** The PDB of the PE image with this RSDS GUID and age (marks the file matched). */
  pe(id: { guid: string; age: number } | undefined): PdbDebugSymbols | undefined {
    const entry = id === undefined ? undefined : this.pdbById.get(`${id.guid}:${id.age}`);
    if (entry) this.matched.add(entry.path);
    return entry;
  }

  /** A warning per debug file that no binary of the image matched. */
  reportUnmatched(problems: Problem[]): void {
    for (const [path, { name, key }] of this.keys) {
      if (this.matched.has(path)) continue;
      problems.push({ path: name, source: 'debug-files', kind: 'warning', message: `debug file matches no binary of the image (${key}); it was not used` });
    }
  }
}

// The DWARF function-name reader against programs built here (gcc DWARF 4 and 5, clang DWARF 5 with strx/addrx
// forms), cross-checked with the function symbols `nm` lists; and mutated .debug_info/.debug_abbrev sections,
// each either read or rejected with a FormatError, never a crash.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bufferSource } from '../../../src/engine/binaries/byte-source.js';
import { type DwarfSections, dwarfFunctions } from '../../../src/engine/binaries/dwarf.js';
import { parseElf, readSection } from '../../../src/engine/binaries/elf.js';
import { FormatError } from '../../../src/engine/format-error.js';
import { buildElfWithDebug, bytes } from './debug-inputs.js';
import { buildDir } from './toolchain.js';
import { needCommands } from '../../support/requirements.js';

async function sectionsOf(path: string): Promise<DwarfSections> {
  const buf = bytes(path);
  const elf = await parseElf(bufferSource(buf));
  const read = async (name: string) => {
    const s = elf.sections.find((x) => x.name === name);
    return s ? readSection(bufferSource(buf), s) : undefined;
  };
  return {
    info: (await read('.debug_info'))!, abbrev: (await read('.debug_abbrev'))!, str: await read('.debug_str'), lineStr: await read('.debug_line_str'),
    strOffsets: await read('.debug_str_offsets'), addr: await read('.debug_addr'), le: true,
  };
}

/** Defined text symbols of the program's own functions, from `nm`. */
function nmFunctions(path: string, names: string[]): Array<{ address: number; name: string }> {
  return execFileSync('nm', [path], { stdio: 'pipe' }).toString().split('\n')
    .map((line) => /^([0-9a-f]+) [Tt] (\w+)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && names.includes(m[2]!))
    .map((m) => ({ address: parseInt(m[1]!, 16), name: m[2]! }));
}

const BUILDS = [
  { label: 'gcc DWARF 5', cc: 'gcc', flags: ['-g'] },
  { label: 'gcc DWARF 4', cc: 'gcc', flags: ['-gdwarf-4'] },
  { label: 'clang DWARF 5', cc: 'clang', flags: ['-g'] },
  { label: 'clang DWARF 4', cc: 'clang', flags: ['-gdwarf-4'] },
];

describe.each(BUILDS)('DWARF functions ($label)', ({ cc, flags }) => {
  const available = needCommands([cc, 'objcopy', 'strip', 'nm'], `the ${cc} DWARF tests`);
  const dir = buildDir('dwarf-');

  it.runIf(available)('names the subprograms with code, at the addresses nm gives', async () => {
    const built = buildElfWithDebug(dir(), 'prog', cc, flags);
    const names = ['copy_name', 'format_it', 'main'];
    const functions = dwarfFunctions(await sectionsOf(built.dwarfOnly));
    const expected = nmFunctions(built.debug, names);
    expect(expected).toHaveLength(3);
    expect(functions.filter((f) => names.includes(f.name)).sort((a, b) => a.address - b.address)).toEqual(expected.sort((a, b) => a.address - b.address));
    // Declarations (strcpy, sprintf from the headers) have no code and are not listed.
    expect(functions.map((f) => f.name)).not.toContain('strcpy');
  });

  it.runIf(available)('reads or rejects (never crashes on) 200 mutations of .debug_info and .debug_abbrev', async () => {
    const built = buildElfWithDebug(dir(), 'fuzz', cc, flags);
    const seed = await sectionsOf(built.dwarfOnly);
    let state = 0x0d3a7f;
    const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const outcomes = { ok: 0, rejected: 0 };
    for (let i = 0; i < 200; i++) {
      const info = Buffer.from(seed.info);
      const abbrev = Buffer.from(seed.abbrev);
      const target = i % 2 ? info : abbrev;
      for (let k = 1 + Math.floor(next() * 4); k > 0; k--) target[Math.floor(next() * target.length)] = Math.floor(next() * 256);
      try {
        dwarfFunctions({ ...seed, info: i % 7 === 0 ? info.subarray(0, Math.floor(next() * info.length)) : info, abbrev });
        outcomes.ok++;
      } catch (error) {
        if (!(error instanceof FormatError)) throw new Error(`mutation ${i}: ${(error as Error).name}: ${(error as Error).message}`);
        outcomes.rejected++;
      }
    }
    expect(outcomes.ok).toBeGreaterThan(0);
    expect(outcomes.rejected).toBeGreaterThan(0);
  });
});

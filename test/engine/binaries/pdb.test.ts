// The PDB reader against a PDB that lld-link writes here, cross-checked with llvm-pdbutil (summary, modules,
// section contributions, publics) and with the PE's RSDS record; then truncated and mutated PDBs (a few hundred
// seeded mutations of the MSF container and of the DBI stream): each either parses or throws FormatError.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bufferSource } from '../../../src/engine/binaries/byte-source.js';
import { parseDbi } from '../../../src/engine/binaries/pdb-dbi.js';
import { parseMsf } from '../../../src/engine/binaries/pdb-msf.js';
import { parsePdb } from '../../../src/engine/binaries/pdb.js';
import { parsePe } from '../../../src/engine/binaries/pe.js';
import { FormatError } from '../../../src/engine/format-error.js';
import { buildPeWithPdb, bytes, PE_TOOLS } from './debug-inputs.js';
import { buildDir } from './toolchain.js';
import { needCommands } from '../../support/requirements.js';

const pdbutil = (args: string[]): string => execFileSync('llvm-pdbutil', args, { stdio: 'pipe' }).toString();

/** Mulberry32: a small seeded generator, so a failing mutation can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `fn`; passes when it returns or throws FormatError, fails (with the case) on any other error. */
function parsesOrFormatError(fn: () => unknown, label: string): 'ok' | 'rejected' {
  try {
    fn();
    return 'ok';
  } catch (error) {
    if (error instanceof FormatError) return 'rejected';
    throw new Error(`${label}: ${(error as Error).name}: ${(error as Error).message}`);
  }
}

describe('PDB reader', () => {
  const available = needCommands([...PE_TOOLS, 'llvm-pdbutil'], 'the PDB reader tests');
  const dir = buildDir('pdb-');
  let built: { exe: string; pdb: string } | undefined;
  const build = () => (built ??= buildPeWithPdb(dir(), 'tool'));

  it.runIf(available)('reads what llvm-pdbutil reads: GUID and age, modules, section contributions, publics', () => {
    const { pdb: path } = build();
    const pdb = parsePdb(bytes(path));
    const summary = pdbutil(['dump', '--summary', path]);
    const guid = /GUID: \{(\w{8})-(\w{4})-(\w{4})-(\w{4})-(\w{12})\}/.exec(summary)!;
    // The GUID is shown with its first three fields byte-swapped (little-endian in the file).
    const swap = (hex: string) => hex.match(/../g)!.reverse().join('');
    expect(pdb.guid).toBe(`${swap(guid[1]!)}${swap(guid[2]!)}${swap(guid[3]!)}${guid[4]}${guid[5]}`.toLowerCase());
    expect(pdb.age).toBe(Number(/Age: (\d+)/.exec(summary)![1]));
    expect(pdb.machine).toBe(0x8664);

    const modules = [...pdbutil(['dump', '--modules', path]).matchAll(/Mod (\d+) \| `([^`]*)`/g)].map((m) => m[2]);
    expect(pdb.modules.map((m) => m.name)).toEqual(modules);

    const contribs = [...pdbutil(['dump', '--section-contribs', path]).matchAll(/mod = (\d+), (\d+):(\d+), size = (\d+)/g)].map((m) => ({
      module: Number(m[1]), section: Number(m[2]), offset: Number(m[3]), size: Number(m[4]),
    }));
    expect(contribs.length).toBeGreaterThan(0);
    expect(pdb.contributions.map(({ module, section, offset, size }) => ({ module, section, offset, size }))).toEqual(contribs);

    const publics = [...pdbutil(['dump', '--publics', path]).matchAll(/S_PUB32 \[size = \d+\] `([^`]*)`\s+flags = ([^,]+), addr = (\d+):(\d+)/g)]
      .map((m) => ({ name: m[1], section: Number(m[3]), offset: Number(m[4]), function: m[2]!.includes('function') }));
    const ours = pdb.publics.map(({ name, section, offset }) => ({ name, section, offset }));
    expect(ours.sort((a, b) => a.name!.localeCompare(b.name!))).toEqual(publics.map(({ name, section, offset }) => ({ name, section, offset })).sort((a, b) => a.name!.localeCompare(b.name!)));
    for (const p of publics.filter((p) => p.function)) expect(pdb.publics.find((q) => q.name === p.name)!.function).toBe(true);
    expect(pdb.publics.filter((p) => p.function).map((p) => p.name).sort()).toEqual(['copy_name', 'format_it', 'main', 'sprintf', 'strcpy']);
  });

  it.runIf(available)('maps section:offset to the RVAs of the PE, and matches the PE by its RSDS GUID and age', async () => {
    const { exe, pdb: path } = build();
    const pdb = parsePdb(bytes(path));
    const pe = await parsePe(bufferSource(bytes(exe)));
    expect(pe.pdbId).toEqual({ guid: pdb.guid, age: pdb.dbiAge });
    expect(pdb.sections.map((s) => [s.name, s.virtualAddress])).toEqual(pe.sections.map((s) => [s.name, s.virtualAddress]));
    const text = pe.sections.find((s) => s.name === '.text')!;
    const main = pdb.publics.find((p) => p.name === 'main')!;
    expect(main.rva).toBe(text.virtualAddress + main.offset);
    // Without its section headers stream the PDB falls back to the sections given (the PE's).
    expect(parsePdb(bytes(path), pe.sections).publics.find((p) => p.name === 'main')!.rva).toBe(main.rva);
  });

  it.runIf(available)('rejects every truncation of the PDB with a FormatError', () => {
    const buf = bytes(build().pdb);
    for (let length = 0; length < buf.length; length += 97) {
      expect(() => parsePdb(buf.subarray(0, length)), `truncated to ${length}`).toThrow(FormatError);
    }
  });

  it.runIf(available)('parses or rejects (never crashes on) 400 mutations of the container and of the DBI stream', () => {
    const seed = bytes(build().pdb);
    const next = random(0x5eed);
    const blockSize = seed.readUInt32LE(32);
    const mapBlock = seed.readUInt32LE(52);
    const outcomes = { ok: 0, rejected: 0 };
    for (let i = 0; i < 300; i++) {
      const buf = Buffer.from(seed);
      for (let k = 1 + Math.floor(next() * 6); k > 0; k--) {
        // The superblock, the block map and directory, and anywhere else, in turn.
        const region = i % 3 === 0 ? [0, 56] : i % 3 === 1 ? [mapBlock * blockSize, blockSize] : [0, buf.length];
        const at = region[0]! + Math.floor(next() * region[1]!);
        buf[at] = next() < 0.5 ? Math.floor(next() * 256) : buf[at]! ^ (1 << Math.floor(next() * 8));
      }
      outcomes[parsesOrFormatError(() => parsePdb(buf), `container mutation ${i}`)]++;
    }
    const dbi = parseMsf(seed).stream(3);
    for (let i = 0; i < 100; i++) {
      const buf = Buffer.from(dbi);
      for (let k = 1 + Math.floor(next() * 4); k > 0; k--) buf.writeUInt32LE(Math.floor(next() * 2 ** 32), Math.floor(next() * (buf.length - 4)));
      outcomes[parsesOrFormatError(() => parseDbi(buf), `DBI mutation ${i}`)]++;
    }
    // Both outcomes happen: the mutations reach checked fields and harmless ones.
    expect(outcomes.ok).toBeGreaterThan(0);
    expect(outcomes.rejected).toBeGreaterThan(0);
  });

  it('rejects what is not a PDB', () => {
    expect(() => parsePdb(Buffer.from('Microsoft C/C++ program database 2.00\r\n\x1aJG\0\0'))).toThrow(/not a PDB file/);
    expect(() => parsePdb(Buffer.alloc(0))).toThrow(FormatError);
  });
});

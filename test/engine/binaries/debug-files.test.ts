// Debug files in the binaries analyzer: a stripped ELF named by its debug file (.symtab, or DWARF 4/5 only, gcc
// and clang forms), a PE named by its PDB, and the files that match nothing or cannot be read, reported as
// warnings. Inputs are built here with gcc/clang, strip, objcopy, lld-link (debug-inputs.ts).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnalysisContext } from '../../../src/engine/analyzer.js';
import { createBinariesAnalyzer } from '../../../src/engine/binaries/binaries.analyzer.js';
import { bufferSource } from '../../../src/engine/binaries/byte-source.js';
import { parseElf } from '../../../src/engine/binaries/elf.js';
import { FileIndex } from '../../../src/engine/file-index.js';
import { levelOf } from '../../../src/engine/problems.js';
import type { BinaryInfo, EngineFinding } from '../../../src/engine/types.js';
import { buildElfWithDebug, buildPeWithPdb, PE_TOOLS } from './debug-inputs.js';
import { buildDir } from './toolchain.js';
import { needCommands } from '../../support/requirements.js';

/** Runs the binaries analyzer over the folder `root` with the debug files. */
async function analyze(root: string, debugFiles: Array<{ path: string; name: string }> = []): Promise<AnalysisContext> {
  const ctx: AnalysisContext = {
    image: { fileName: 'fixture', size: 0, hashes: { sha256: '', sha1: '', md5: '' }, type: 'data' },
    index: await FileIndex.fromDirectory(root),
    components: [],
    findings: [],
    cryptoAssets: [],
    problems: [],
    debugFiles,
    signal: new AbortController().signal,
    progress: () => {},
  };
  await createBinariesAnalyzer().run(ctx);
  return ctx;
}

const callersOf = (binary: BinaryInfo, name: string): string[] => binary.unsafeFunctions.find((f) => f.name === name)!.callers.map((c) => c.function).sort();
const unsafeFinding = (ctx: AnalysisContext): EngineFinding => ctx.findings.find((f) => f.pname === 'unsafe-function-use')!;

const ELF_BUILDS = [
  { label: 'gcc, DWARF 5 (strp/line_strp)', cc: 'gcc', flags: ['-g'] },
  { label: 'gcc, DWARF 4', cc: 'gcc', flags: ['-gdwarf-4'] },
  { label: 'clang, DWARF 5 (strx/addrx)', cc: 'clang', flags: ['-g'] },
];

describe.each(ELF_BUILDS)('stripped ELF and its debug file ($label)', ({ cc, flags }) => {
  const available = needCommands([cc, 'objcopy', 'strip'], `the ${cc} debug-file tests`);
  const dir = buildDir('debug-elf-');
  const setup = () => {
    const built = buildElfWithDebug(dir(), 'tool', cc, flags);
    const root = join(dir(), 'root');
    mkdirSync(join(root, 'usr/bin'), { recursive: true });
    copyFileSync(built.stripped, join(root, 'usr/bin/tool'));
    return { ...built, root };
  };

  it.runIf(available)('names no caller without the debug file, and the right callers with it (.symtab, then DWARF only)', async () => {
    const { root, debug, dwarfOnly } = setup();
    const bare = await analyze(root);
    const binary = bare.binaries![0]!;
    expect(binary.symbols.source).toBe('none');
    expect(binary.unsafeFunctions.map((f) => f.name).sort()).toEqual(['sprintf', 'strcpy']);
    expect(binary.unsafeFunctions.every((f) => f.callSites === 1 && f.callers.length === 0)).toBe(true);
    const bareFinding = unsafeFinding(bare);
    expect(bareFinding.occurrences[0]!.evidence).not.toMatch(/copy_name|format_it/);

    for (const [file, source] of [[debug, 'symtab'], [dwarfOnly, 'dwarf']] as const) {
      const ctx = await analyze(root, [{ path: file, name: 'tool.debug' }]);
      const named = ctx.binaries![0]!;
      expect(named.symbols).toMatchObject({ source, debugFile: 'tool.debug' });
      expect(callersOf(named, 'strcpy')).toEqual(['copy_name']);
      expect(callersOf(named, 'sprintf')).toEqual(['format_it']);
      const finding = unsafeFinding(ctx);
      expect(finding.occurrences[0]!.evidence).toContain('in copy_name ×1');
      expect(finding.occurrences[0]!.evidence).toContain('in format_it ×1');
      expect(finding.description).toContain('copy_name');
      // Same rule, same path: the finding keeps its identity (and its status) with or without the debug file.
      expect(finding.fingerprint).toBe(bareFinding.fingerprint);
      expect(ctx.problems.filter((p) => p.source === 'debug-files')).toEqual([]);
    }
  });

  it.runIf(available)('reports a debug file that matches no binary, and one that cannot be read, as warnings', async () => {
    const { root } = setup();
    const other = buildElfWithDebug(dir(), 'other', cc, flags); // another source file name: another build-id
    writeFileSync(join(dir(), 'notes.txt'), 'not a debug file\n');
    const ctx = await analyze(root, [
      { path: other.debug, name: 'other.debug' },
      { path: join(dir(), 'notes.txt'), name: 'notes.txt' },
    ]);
    expect(ctx.binaries![0]!.symbols.source).toBe('none');
    const problems = ctx.problems.filter((p) => p.source === 'debug-files');
    expect(problems.map((p) => [p.path, levelOf(p)])).toEqual([['notes.txt', 'warning'], ['other.debug', 'warning']]);
    expect(problems[1]!.message).toMatch(/matches no binary of the image \(build-id [0-9a-f]+\)/);
  });

  it.runIf(available)('reads DWARF sections compressed with zlib and zstd (SHF_COMPRESSED), and says so for .zdebug ones', async () => {
    const { root, dwarfOnly } = setup();
    for (const method of ['zlib', 'zstd']) {
      const compressed = `${dwarfOnly}.${method}`;
      execFileSync('objcopy', [`--compress-debug-sections=${method}`, dwarfOnly, compressed]);
      expect(execFileSync('readelf', ['-SW', compressed], { stdio: 'pipe' }).toString()).toMatch(/\.debug_info .* C /);
      const ctx = await analyze(root, [{ path: compressed, name: 'tool.debug' }]);
      expect(ctx.binaries![0]!.symbols.source).toBe('dwarf');
      expect(callersOf(ctx.binaries![0]!, 'strcpy')).toEqual(['copy_name']);
    }
    // A damaged zlib stream is a warning naming the section, not a crash.
    const damaged = readFileSync(`${dwarfOnly}.zlib`);
    const info = (await parseElf(bufferSource(damaged))).sections.find((s) => s.name === '.debug_info')!;
    damaged.fill(0x55, info.offset + 30, info.offset + 60);
    writeFileSync(`${dwarfOnly}.bad`, damaged);
    const bad = await analyze(root, [{ path: `${dwarfOnly}.bad`, name: 'tool.debug' }]);
    expect(bad.binaries![0]!.symbols.source).toBe('none');
    expect(bad.problems.find((p) => p.source === 'debug-files')?.message).toMatch(/^debug file not read: \.debug_info: compressed data is corrupt/);
    execFileSync('objcopy', ['--compress-debug-sections=zlib-gnu', dwarfOnly, `${dwarfOnly}.gnu`]);
    const ctx = await analyze(root, [{ path: `${dwarfOnly}.gnu`, name: 'tool.debug' }]);
    expect(ctx.binaries![0]!.symbols.source).toBe('none');
    expect(ctx.problems.find((p) => p.source === 'debug-files')?.message).toMatch(/compressed \.zdebug sections, which are not read/);
  });
});

describe('PE and its PDB', () => {
  const available = needCommands(PE_TOOLS, 'the PE/PDB debug-file tests');
  const dir = buildDir('debug-pe-');

  it.runIf(available)('names callers and finds the linked-in sprintf only with the PDB', async () => {
    const { exe, pdb } = buildPeWithPdb(dir(), 'tool');
    const root = join(dir(), 'root');
    mkdirSync(root);
    copyFileSync(exe, join(root, 'tool.exe'));
    const bare = (await analyze(root)).binaries![0]!;
    expect(bare.symbols.source).toBe('none');
    expect(bare.unsafeFunctions).toEqual([{ name: 'strcpy', symbol: 'strcpy', linkage: 'imported', callSites: 2, callers: [] }]);

    const ctx = await analyze(root, [{ path: pdb, name: 'tool.pdb' }]);
    const named = ctx.binaries![0]!;
    expect(named.symbols).toMatchObject({ source: 'pdb', debugFile: 'tool.pdb' });
    expect(callersOf(named, 'strcpy')).toEqual(['copy_name', 'main']);
    expect(named.unsafeFunctions.find((f) => f.name === 'sprintf')).toEqual({ name: 'sprintf', symbol: 'sprintf', linkage: 'static', callSites: 1, callers: [{ function: 'format_it', callSites: 1 }] });
    expect(unsafeFinding(ctx).occurrences[0]!.evidence).toBe('strcpy ×2 in copy_name ×1, main ×1; sprintf ×1 in format_it ×1');
    expect(ctx.problems.filter((p) => p.source === 'debug-files')).toEqual([]);
  });

  it.runIf(available)('warns about a PDB of another build, and about a corrupt PDB, and still analyses the binary', async () => {
    const first = buildPeWithPdb(dir(), 'first');
    const root = join(dir(), 'root2');
    mkdirSync(root);
    copyFileSync(first.exe, join(root, 'first.exe'));
    const second = join(dir(), 'second');
    mkdirSync(second);
    const other = buildPeWithPdb(second, 'first'); // same source, new GUID
    const corrupt = join(dir(), 'corrupt.pdb');
    const bytes = readFileSync(first.pdb);
    writeFileSync(corrupt, bytes.subarray(0, bytes.length >> 1));
    const ctx = await analyze(root, [{ path: other.pdb, name: 'other.pdb' }, { path: corrupt, name: 'corrupt.pdb' }]);
    expect(ctx.binaries![0]!.symbols.source).toBe('none');
    const problems = ctx.problems.filter((p) => p.source === 'debug-files');
    expect(problems.map((p) => [p.path, levelOf(p)])).toEqual([['corrupt.pdb', 'warning'], ['other.pdb', 'warning']]);
    expect(problems[0]!.message).toMatch(/debug file not read: PDB truncated/);
    expect(problems[1]!.message).toMatch(/matches no binary of the image \(PDB GUID [0-9a-f]{32}, age 1\)/);
  });
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bufferSource } from '../../../src/engine/binaries/byte-source.js';
import { elfArchitecture, parseElf } from '../../../src/engine/binaries/elf.js';
import { FormatError } from '../../../src/engine/format-error.js';
import { corpus, haveShared } from '../../support/shared.js';

let dir = '';
let lib: Buffer;
let exe: Buffer;

// A shared library with a SONAME, a version script and a build-id, and an executable that needs it.
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'elf-test-'));
  writeFileSync(join(dir, 'foo.c'), 'int foo_init(void){return 1;}\nint foo_run(int x){return x+1;}\n');
  writeFileSync(join(dir, 'foo.map'), 'FOO_1.0 { global: foo_init; local: *; };\nFOO_1.1 { global: foo_run; } FOO_1.0;\n');
  writeFileSync(join(dir, 'main.c'), '#include <stdio.h>\nint foo_run(int);\nint main(void){printf("%d\\n", foo_run(1));return 0;}\n');
  const gcc = (...args: string[]) => execFileSync('gcc', args, { cwd: dir, stdio: 'pipe' });
  gcc('-shared', '-fPIC', '-Wl,-soname,libfoo.so.1', '-Wl,--version-script=foo.map', '-Wl,--build-id=sha1', '-o', 'libfoo.so.1.2.3', 'foo.c');
  gcc('-o', 'main', 'main.c', 'libfoo.so.1.2.3', '-Wl,-rpath,/opt/foo/lib', '-Wl,--disable-new-dtags', '-Wl,--build-id=sha1');
  lib = readFileSync(join(dir, 'libfoo.so.1.2.3'));
  exe = readFileSync(join(dir, 'main'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parseElf on generated objects', () => {
  it('reads class, machine, SONAME, version definitions, dynamic symbols and build-id of a library', async () => {
    const elf = await parseElf(bufferSource(lib));
    expect(elf.class).toBe(64);
    expect(elf.endian).toBe('le');
    expect(elf.type).toBe('shared-object');
    expect(elf.architecture).toBe(process.arch === 'arm64' ? 'aarch64' : 'x86_64');
    expect(elf.soname).toBe('libfoo.so.1');
    expect(elf.versionDefs).toEqual(['FOO_1.0', 'FOO_1.1']);
    const run = elf.dynamicSymbols.find((s) => s.name === 'foo_run');
    expect(run).toMatchObject({ type: 'func', bind: 'global', defined: true, version: 'FOO_1.1' });
    const readelf = execFileSync('readelf', ['-n', join(dir, 'libfoo.so.1.2.3')]).toString();
    expect(readelf).toContain(`Build ID: ${elf.buildId}`);
    expect(elf.buildId).toMatch(/^[0-9a-f]{40}$/);
  });

  it('reads interpreter, DT_NEEDED, RPATH, version needs and imports of an executable', async () => {
    const elf = await parseElf(bufferSource(exe));
    expect(elf.staticallyLinked).toBe(false);
    expect(elf.interpreter).toMatch(/^\/lib.*ld-linux.*\.so\.\d$/);
    expect(elf.needed).toEqual(['libfoo.so.1', 'libc.so.6']);
    expect(elf.rpath).toBe('/opt/foo/lib');
    expect(elf.versionNeeds.find((n) => n.file === 'libfoo.so.1')?.versions).toEqual(['FOO_1.1']);
    expect(elf.versionNeeds.find((n) => n.file === 'libc.so.6')?.versions.some((v) => v.startsWith('GLIBC_'))).toBe(true);
    expect(elf.dynamicSymbols.find((s) => s.name === 'foo_run')).toMatchObject({ defined: false, version: 'FOO_1.1' });
    expect(elf.dynamicSymbols.find((s) => s.name === 'printf')).toMatchObject({ defined: false });
  });

  it('falls back to program headers when the section headers are removed', async () => {
    const stripped = Buffer.from(lib);
    // Zero e_shoff / e_shnum / e_shstrndx (ELF64 offsets 0x28, 0x3c, 0x3e).
    stripped.writeBigUInt64LE(0n, 0x28);
    stripped.writeUInt16LE(0, 0x3c);
    stripped.writeUInt16LE(0, 0x3e);
    const elf = await parseElf(bufferSource(stripped));
    expect(elf.sections).toEqual([]);
    expect(elf.soname).toBe('libfoo.so.1');
    expect(elf.buildId).toMatch(/^[0-9a-f]{40}$/);
    expect(elf.versionDefs).toEqual(['FOO_1.0', 'FOO_1.1']);
    expect(elf.dynamicSymbols.find((s) => s.name === 'foo_run')?.version).toBe('FOO_1.1');
  });

  it('reads .symtab on request', async () => {
    const elf = await parseElf(bufferSource(exe), { symtab: true });
    expect(elf.hasSymtab).toBe(true);
    expect(elf.symbols?.some((s) => s.name === 'main' && s.type === 'func' && s.defined)).toBe(true);
  });
});

describe('parseElf on bad input', () => {
  it('rejects non-ELF data and bad identification bytes', async () => {
    await expect(parseElf(bufferSource(Buffer.from('MZ not an elf')))).rejects.toThrow(FormatError);
    const badClass = Buffer.from(lib.subarray(0, 64));
    badClass[4] = 7;
    await expect(parseElf(bufferSource(badClass))).rejects.toThrow(/invalid ELF class/);
    await expect(parseElf(bufferSource(lib.subarray(0, 40)))).rejects.toThrow(/truncated ELF header/);
  });

  it('rejects a program header table outside the file', async () => {
    await expect(parseElf(bufferSource(lib.subarray(0, 100)))).rejects.toThrow(FormatError);
  });

  it('keeps the header and notes a problem when section headers are cut off', async () => {
    const shoff = Number(lib.readBigUInt64LE(0x28));
    const elf = await parseElf(bufferSource(lib.subarray(0, shoff + 10)));
    expect(elf.sections).toEqual([]);
    expect(elf.problems.some((p) => p.startsWith('section headers skipped'))).toBe(true);
    expect(elf.soname).toBe('libfoo.so.1');
  });

  it('survives random corruption of the tables without throwing anything but FormatError', async () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let round = 0; round < 40; round++) {
      const bad = Buffer.from(lib);
      for (let i = 0; i < 32; i++) bad[64 + Math.floor(rnd() * (bad.length - 64))] = Math.floor(rnd() * 256);
      try {
        await parseElf(bufferSource(bad));
      } catch (err) {
        expect(err).toBeInstanceOf(FormatError);
      }
    }
  });

  it('names architectures by machine and endianness', () => {
    expect(elfArchitecture(8, true, false)).toBe('mipsel');
    expect(elfArchitecture(8, false, false)).toBe('mips');
    expect(elfArchitecture(40, true, false)).toBe('arm');
    expect(elfArchitecture(243, true, true)).toBe('riscv64');
    expect(elfArchitecture(9999, true, false)).toBe('elf-machine-9999');
  });
});

describe.runIf(haveShared('corpus', 'busybox-mipsel'))('parseElf on corpus binaries', () => {
  it.each([
    ['busybox-mipsel', 32, 'le', 'mipsel'],
    ['ncat-linux-x86_64', 64, 'le', 'x86_64'],
    ['tcpdump-linux-arm', 32, 'le', 'arm'],
  ])('%s: static %s-bit %s %s', async (name, cls, endian, arch) => {
    const elf = await parseElf(bufferSource(readFileSync(corpus(name))));
    expect(elf).toMatchObject({ class: cls, endian, architecture: arch, type: 'executable', staticallyLinked: true, needed: [] });
    expect(elf.hasSymtab).toBe(false);
  });
});

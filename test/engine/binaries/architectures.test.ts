// Every ELF flavour the parser claims (32/64-bit, both endiannesses; x86, x86-64, ARM, AArch64, MIPS, MIPS64,
// PowerPC, PowerPC64, RISC-V), built here with clang and ld.lld against a small stand-in libc (a shared object
// defining strcpy, sprintf and system), so no target C library is needed. Header facts are checked against
// readelf, hardening against checksec's readelf rules, and unsafe imports against the source: call sites where
// the architecture is decoded, one use per import elsewhere. (Big-endian ARM is left out: ld.lld writes its
// BE32 PLT little-endian.) Skipped with a notice without clang or ld.lld.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeElf } from '../../../src/engine/binaries/elf-binary.js';
import { buildDir, readelfHardening } from './toolchain.js';
import { needCommands } from '../../support/requirements.js';

const LIBC = `char *strcpy(char *d, const char *s) { char *r = d; while ((*d++ = *s++) != 0) {} return r; }
int sprintf(char *b, const char *f, ...) { b[0] = f[0]; return 0; }
int system(const char *c) { return c[0]; }
`;
const PROGRAM = `char *strcpy(char *, const char *);
int sprintf(char *, const char *, ...);
int system(const char *);
char buf[64];
void copy3(const char *a) { strcpy(buf, a); strcpy(buf, a + 1); strcpy(buf, a + 2); }
void fmt(int x) { sprintf(buf, "%d", x); system(buf); }
void _start(void) { copy3("abc"); fmt(1); }
`;

const TARGETS: Array<{ triple: string; arch: string; bits: 32 | 64; endian: 'le' | 'be'; decoded: boolean }> = [
  { triple: 'x86_64-linux-gnu', arch: 'x86_64', bits: 64, endian: 'le', decoded: true },
  { triple: 'i686-linux-gnu', arch: 'x86', bits: 32, endian: 'le', decoded: true },
  { triple: 'armv7-linux-gnueabihf', arch: 'arm', bits: 32, endian: 'le', decoded: true },
  { triple: 'aarch64-linux-gnu', arch: 'aarch64', bits: 64, endian: 'le', decoded: true },
  { triple: 'aarch64_be-linux-gnu', arch: 'aarch64_be', bits: 64, endian: 'be', decoded: true },
  { triple: 'mips-linux-gnu', arch: 'mips', bits: 32, endian: 'be', decoded: true },
  { triple: 'mipsel-linux-gnu', arch: 'mipsel', bits: 32, endian: 'le', decoded: true },
  { triple: 'mips64-linux-gnuabi64', arch: 'mips64', bits: 64, endian: 'be', decoded: true },
  { triple: 'mips64el-linux-gnuabi64', arch: 'mips64el', bits: 64, endian: 'le', decoded: true },
  { triple: 'powerpc-linux-gnu', arch: 'powerpc', bits: 32, endian: 'be', decoded: false },
  { triple: 'powerpc64-linux-gnu', arch: 'ppc64', bits: 64, endian: 'be', decoded: false },
  { triple: 'powerpc64le-linux-gnu', arch: 'ppc64le', bits: 64, endian: 'le', decoded: false },
  { triple: 'riscv32-linux-gnu', arch: 'riscv32', bits: 32, endian: 'le', decoded: false },
  { triple: 'riscv64-linux-gnu', arch: 'riscv64', bits: 64, endian: 'le', decoded: false },
];

describe.runIf(needCommands(['clang', 'ld.lld', 'readelf'], 'the cross-architecture ELF tests'))('ELF binaries of every supported architecture (clang + ld.lld)', () => {
  const dir = buildDir('elf-arch-', { 'libc.c': LIBC, 'prog.c': PROGRAM });
  const run = (cmd: string, args: string[]): void => {
    execFileSync(cmd, args, { cwd: dir(), stdio: 'pipe' });
  };

  for (const t of TARGETS) {
    it(`${t.triple}: header, hardening and unsafe imports`, async () => {
      const cc = ['-w', `--target=${t.triple}`, '-O0', '-fno-builtin', '-c'];
      run('clang', [...cc, '-fPIC', 'libc.c', '-o', `libc-${t.triple}.o`]);
      run('ld.lld', ['-shared', '-soname', 'libc.so.6', `libc-${t.triple}.o`, '-o', `libc-${t.triple}.so`]);
      run('clang', [...cc, '-fPIE', 'prog.c', '-o', `prog-${t.triple}.o`]);
      run('ld.lld', ['-pie', '--dynamic-linker', '/lib/ld.so.1', '-z', 'noexecstack', '-z', 'relro', '-z', 'now', '-e', '_start', `prog-${t.triple}.o`, `libc-${t.triple}.so`, '-o', `prog-${t.triple}`]);
      const file = join(dir(), `prog-${t.triple}`);
      const binary = await analyzeElf('prog', readFileSync(file));
      expect(binary).toMatchObject({ format: 'elf', type: 'executable', arch: t.arch, bits: t.bits, endian: t.endian, callSitesDecoded: t.decoded });
      const header = execFileSync('readelf', ['-h', file]).toString();
      expect(header).toContain(t.bits === 64 ? 'ELF64' : 'ELF32');
      expect(header).toContain(t.endian === 'le' ? 'little endian' : 'big endian');
      expect(binary!.hardening).toEqual(readelfHardening(file));
      // ld.lld makes no PT_GNU_RELRO for MIPS (its GOT must stay writable for the dynamic linker).
      expect(binary!.hardening).toMatchObject({ nx: true, pie: true, relro: t.arch.startsWith('mips') ? 'none' : 'full', stripped: false });
      const uses = Object.fromEntries(binary!.unsafeFunctions.map((f) => [f.symbol, f.callSites]));
      if (t.decoded) {
        expect(uses).toEqual({ strcpy: 3, sprintf: 1, system: 1 });
        expect(binary!.unsafeFunctions.find((f) => f.symbol === 'strcpy')?.callers).toEqual([{ function: 'copy3', callSites: 3 }]);
        expect(binary!.unsafeUses).toBe(5);
      } else {
        expect(uses).toEqual({ strcpy: undefined, sprintf: undefined, system: undefined });
        expect(binary!.unsafeUses).toBe(3);
      }
      expect(binary!.symbols.imported).toBe(3);
    });
  }
});

// ELF hardening against checksec's readelf rules, on binaries built here with each flag on and off, for the
// host gcc (x86-64) and the ARM and MIPS cross compilers (skipped with a notice when one is missing).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeElf } from '../../../src/engine/binaries/elf-binary.js';
import { buildDir, compile, haveCompiler, readelfHardening, TOOLCHAINS } from './toolchain.js';

const SOURCE = `#include <stdio.h>
#include <string.h>
char out[16];
int main(int argc, char **argv) {
  char local[32];
  memcpy(local, argv[0], argc);
  sprintf(out, "%s", argv[0]);
  puts(local);
  return out[0];
}
`;

/** Each variant flips one mitigation; `expect` states what must come out whatever readelf says. */
const VARIANTS: Array<{ name: string; flags: string[]; expect: Record<string, unknown> }> = [
  { name: 'execstack', flags: ['-z', 'execstack'], expect: { nx: false } },
  { name: 'noexecstack', flags: ['-z', 'noexecstack'], expect: { nx: true } },
  { name: 'no-pie', flags: ['-no-pie', '-fno-pie'], expect: { pie: false } },
  { name: 'pie', flags: ['-pie', '-fPIE'], expect: { pie: true } },
  { name: 'norelro', flags: ['-Wl,-z,norelro'], expect: { relro: 'none' } },
  { name: 'relro', flags: ['-Wl,-z,relro', '-Wl,-z,lazy'], expect: { relro: 'partial' } },
  { name: 'relro-now', flags: ['-Wl,-z,relro,-z,now'], expect: { relro: 'full' } },
  { name: 'canary', flags: ['-fstack-protector-all'], expect: { canary: true } },
  { name: 'no-canary', flags: ['-fno-stack-protector'], expect: { canary: false } },
  { name: 'fortify', flags: ['-D_FORTIFY_SOURCE=2', '-O2'], expect: { fortify: true } },
  { name: 'no-fortify', flags: ['-U_FORTIFY_SOURCE', '-O0'], expect: { fortify: false } },
  { name: 'stripped', flags: ['-s'], expect: { stripped: true } },
  { name: 'rpath', flags: ['-Wl,-rpath,/opt/app/lib', '-Wl,--disable-new-dtags'], expect: { rpath: '/opt/app/lib', runpath: null } },
  { name: 'runpath', flags: ['-Wl,-rpath,/opt/app/lib', '-Wl,--enable-new-dtags'], expect: { rpath: null, runpath: '/opt/app/lib' } },
];

// (The MIPS toolchain's default is an executable stack: PT_GNU_STACK RWE unless -z noexecstack.)
for (const toolchain of TOOLCHAINS.filter((t) => t.label !== 'aarch64')) {
  describe.runIf(haveCompiler(toolchain))(`ELF hardening of ${toolchain.label} binaries (${toolchain.cc})`, () => {
    const dir = buildDir(`hardening-${toolchain.label}-`);

    for (const variant of VARIANTS) {
      it(`matches readelf with ${variant.flags.join(' ')}`, async () => {
        const bytes = compile(toolchain, dir(), variant.name, SOURCE, variant.flags);
        const binary = await analyzeElf(variant.name, bytes);
        expect(binary?.format).toBe('elf');
        const reference = readelfHardening(join(dir(), variant.name));
        expect(binary!.hardening).toEqual(reference);
        expect(binary!.hardening).toMatchObject(variant.expect);
      });
    }

    it('tells a PIE executable from a shared library', async () => {
      const exe = await analyzeElf('exe', compile(toolchain, dir(), 'exe', SOURCE, ['-pie', '-fPIE']));
      const lib = await analyzeElf('lib.so', compile(toolchain, dir(), 'lib.so', 'int f(int x){return x+1;}\n', ['-shared', '-fPIC']));
      expect(exe?.type).toBe('executable');
      expect(lib?.type).toBe('shared-object');
      expect(lib?.format === 'elf' && lib.hardening.pie).toBe(true);
    });
  });
}

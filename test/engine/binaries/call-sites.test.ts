// Unsafe-function call sites on binaries built here for each decoded architecture, compared with the source
// (which calls each function a known number of times from known functions) and with `objdump -d`. Compilers
// that are not installed skip their tests with a notice.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeElf } from '../../../src/engine/binaries/elf-binary.js';
import type { BinaryInfo } from '../../../src/engine/types.js';
import { buildDir, compile, haveCompiler, objdumpMipsGotCalls, objdumpPltCalls, type Toolchain, TOOLCHAINS } from './toolchain.js';

const SOURCE = `#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
char buf[256];
void copy3(const char *a, const char *b) { strcpy(buf, a); strcpy(buf, b); strcpy(buf, a); }
void join2(const char *a) { strcat(buf, a); strcat(buf, "/"); }
void fmt1(int x) { sprintf(buf, "%d", x); }
void fmt2(const char *s) { sprintf(buf, "<%s>", s); }
int parse(const char *s) { int v = 0; sscanf(s, "%d", &v); return v; }
void run(const char *cmd, char **argv) { system(cmd); pclose(popen(cmd, "r")); execvp(cmd, argv); }
int main(int argc, char **argv) { copy3(argv[0], argv[1]); join2(argv[0]); fmt1(argc); fmt2(argv[0]); run(argv[0], argv); return parse(argv[1]); }
`;

/** What the source does: symbol → callers and their call counts. */
const CALLS: Record<string, Record<string, number>> = {
  strcpy: { copy3: 3 },
  strcat: { join2: 2 },
  sprintf: { fmt1: 1, fmt2: 1 },
  __isoc99_sscanf: { parse: 1 },
  system: { run: 1 },
  popen: { run: 1 },
  execvp: { run: 1 },
};
const SYMBOLS = Object.keys(CALLS);

function callsFrom(binary: BinaryInfo | undefined, symbol: string): { total: number; callers: Record<string, number> } {
  const f = binary?.unsafeFunctions.find((u) => u.symbol === symbol);
  return { total: f?.callSites ?? -1, callers: Object.fromEntries((f?.callers ?? []).map((c) => [c.function, c.callSites])) };
}

/** Optimised code keeps the source's calls only without inlining; its last calls become tail calls (jmp, b, j). */
const OPTIMISED = ['-O2', '-fno-inline'];

/** Flags per toolchain: each changes how calls reach the library (PLT layouts, GOT calls, Thumb, static). */
const VARIANTS: Record<string, string[][]> = {
  'x86-64': [[], ['-no-pie'], ['-fno-plt'], ['-Wl,-z,now'], ['-fcf-protection=full'], OPTIMISED, ['-s']],
  arm: [['-mthumb'], ['-marm'], ['-marm', '-no-pie'], ['-mthumb', ...OPTIMISED], ['-marm', ...OPTIMISED]],
  mipsel: [[], ['-no-pie'], OPTIMISED, ['-fno-pic', '-mno-abicalls', '-no-pie']],
  aarch64: [[], ['-no-pie'], ['-mbranch-protection=standard'], OPTIMISED],
};

function reference(t: Toolchain, file: string): Record<string, number> {
  if (t.label !== 'mipsel') return objdumpPltCalls(t, file, SYMBOLS);
  // MIPS: PIC code calls through the GOT; non-PIC code may use jal to .plt stubs.
  const got = objdumpMipsGotCalls(t, file, SYMBOLS);
  const plt = objdumpPltCalls(t, file, SYMBOLS);
  return Object.fromEntries(SYMBOLS.map((s) => [s, got[s]! + plt[s]!]));
}

for (const toolchain of TOOLCHAINS) {
  describe.runIf(haveCompiler(toolchain))(`unsafe call sites in ${toolchain.label} binaries (${toolchain.cc})`, () => {
    const dir = buildDir(`calls-${toolchain.label}-`);

    for (const flags of VARIANTS[toolchain.label]!) {
      it(`counts each call of the source and agrees with objdump (${flags.join(' ') || 'defaults'})`, async () => {
        const name = `calls${flags.join('')}`.replace(/[^\w-]/g, '_');
        const bytes = compile(toolchain, dir(), name, SOURCE, ['-fno-builtin', '-O0', ...flags]);
        const binary = await analyzeElf(name, bytes);
        expect(binary?.callSitesDecoded).toBe(true);
        const expected = flags.includes('-s') ? undefined : reference(toolchain, join(dir(), name));
        for (const symbol of SYMBOLS) {
          const found = callsFrom(binary, symbol);
          const total = Object.values(CALLS[symbol]!).reduce((a, b) => a + b, 0);
          expect(found.total, symbol).toBe(total);
          if (expected) expect(found.total, `${symbol} vs objdump`).toBe(expected[symbol]);
          // Stripped binaries keep no function names; the others name every caller.
          expect(found.callers, symbol).toEqual(flags.includes('-s') ? {} : CALLS[symbol]);
        }
        expect(binary?.unsafeFunctions.every((f) => f.linkage === 'imported')).toBe(true);
        expect(binary?.unsafeUses).toBe(11);
      });
    }
  });
}

describe.runIf(haveCompiler(TOOLCHAINS[0]!))('unsafe functions linked into a static x86-64 binary', () => {
  const dir = buildDir('calls-static-');

  it('counts direct calls and calls through .iplt (IFUNC strcpy/strcat) to the linked functions', async () => {
    const binary = await analyzeElf('static', compile(TOOLCHAINS[0]!, dir(), 'static', SOURCE, ['-fno-builtin', '-O0', '-static']));
    for (const symbol of SYMBOLS) {
      const f = binary?.unsafeFunctions.find((u) => u.symbol === symbol);
      expect(f?.linkage, symbol).toBe('static');
      // libc's own code may call them too (strcpy in __assert_fail_base): the program's calls are all there.
      for (const [caller, n] of Object.entries(CALLS[symbol]!)) expect(f?.callers, symbol).toContainEqual({ function: caller, callSites: n });
    }
  });
});

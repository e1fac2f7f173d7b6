// Builds test binaries with the host and cross compilers, and reads the reference facts back with binutils
// (readelf, objdump), independently of the engine's parser. A missing compiler skips its tests with a notice (fails
// them under CI).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { needCommands } from '../../support/requirements.js';

export interface Toolchain {
  /** Test label: 'x86-64', 'arm', 'mipsel', ... */
  label: string;
  cc: string;
  /** objdump that disassembles this architecture. */
  objdump: string;
}

export const TOOLCHAINS: Toolchain[] = [
  { label: 'x86-64', cc: 'gcc', objdump: 'objdump' },
  { label: 'arm', cc: 'arm-linux-gnueabihf-gcc', objdump: 'arm-linux-gnueabihf-objdump' },
  { label: 'mipsel', cc: 'mipsel-linux-gnu-gcc', objdump: 'mipsel-linux-gnu-objdump' },
  { label: 'aarch64', cc: 'aarch64-linux-gnu-gcc', objdump: 'aarch64-linux-gnu-objdump' },
];

/**
 * A temporary build folder for the current describe block, holding `files` (name → content) from beforeAll and
 * removed afterAll; the returned function gives its path.
 */
export function buildDir(prefix: string, files: Record<string, string> = {}): () => string {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}

const available = new Map<string, boolean>();
/** Whether the compiler and its objdump are installed (requirements.ts: a notice, or under CI an error, when not). */
export function haveCompiler(t: Toolchain): boolean {
  if (!available.has(t.cc)) available.set(t.cc, needCommands([t.cc, t.objdump], `the ${t.label} binary tests`));
  return available.get(t.cc)!;
}

/** Compiles `source` (written as <name>.c) in `dir` with the flags; returns the binary's bytes. */
export function compile(t: Toolchain, dir: string, name: string, source: string, flags: string[]): Buffer {
  writeFileSync(join(dir, `${name}.c`), source);
  execFileSync(t.cc, [...flags, '-o', name, `${name}.c`], { cwd: dir, stdio: 'pipe' });
  return readFileSync(join(dir, name));
}

const tool = (cmd: string, args: string[]): string => execFileSync(cmd, args, { stdio: 'pipe', maxBuffer: 256 * 1024 * 1024 }).toString();

/**
 * The hardening checksec.sh would print, from its own readelf greps. One readelf prints the file header, section
 * headers, program headers, dynamic section and symbols (each grep matches lines of its own part only): a process
 * started from the test worker costs tens of milliseconds, and this ran five per binary.
 */
export function readelfHardening(file: string) {
  const readelf = tool('readelf', ['-hSldsW', file]);
  const lines = readelf.split('\n');
  const stack = lines.find((l) => /^\s*GNU_STACK\s/.test(l));
  const flags1 = lines.find((l) => l.includes('(FLAGS_1)')) ?? '';
  const bindNow = /BIND_NOW/.test(readelf) || /\bNOW\b/.test(flags1);
  return {
    nx: stack !== undefined && !stack.trim().split(/\s+/)[6]!.includes('E'),
    pie: /Type:\s+DYN/.test(readelf),
    relro: /GNU_RELRO/.test(readelf) ? (bindNow ? 'full' : 'partial') : 'none',
    canary: /__stack_chk_fail|__stack_chk_guard|__intel_security_cookie/.test(readelf),
    fortify: /\s__\w+_chk(@\S+)?$/m.test(readelf),
    stripped: !readelf.includes('.symtab'),
    rpath: /\(RPATH\)\s+Library rpath: \[(.*)\]/.exec(readelf)?.[1] ?? null,
    runpath: /\(RUNPATH\)\s+Library runpath: \[(.*)\]/.exec(readelf)?.[1] ?? null,
  };
}

/**
 * `objdump -d` calls and tail calls per callee, outside the PLT: instructions whose operand objdump names
 * `<fn@plt>` (`<fn@plt+0x4>`: the A32 entry behind a Thumb veneer), `<fn>` or (x86-64 -fno-plt) `# <fn@GLIBC_x>`.
 */
export function objdumpPltCalls(t: Toolchain, file: string, names: string[]): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
  let inPlt = false;
  for (const line of tool(t.objdump, ['-d', file]).split('\n')) {
    const section = /^Disassembly of section (\S+):/.exec(line);
    if (section) inPlt = section[1]!.startsWith('.plt') || section[1] === '.MIPS.stubs';
    if (inPlt) continue;
    const m = /\t(?:call|callq|jmp|bl|blx|b|b\.w|jal|j)\s+(?:\*0x[0-9a-f]+\(%rip\)\s+# )?[0-9a-f]+ <(\w+?)(?:@plt(?:\+0x4)?|@GLIBC_[\d.]+)?>$/.exec(line);
    if (m && m[1]! in out) out[m[1]!]!++;
  }
  return out;
}

/**
 * MIPS PIC calls per callee from `objdump -d`: `jalr t9` after `lw t9,OFF(gp)` (directly or through another
 * register moved to t9), with OFF named by the GOT listing of `readelf -A`: global entries by their symbol,
 * local ones (static PIC binaries) by the function symbol at their initial value.
 */
export function objdumpMipsGotCalls(t: Toolchain, file: string, names: string[]): Record<string, number> {
  // Aliases share an address (strcpy, __GI_strcpy): the wanted name wins.
  const functions = new Map<string, string>();
  for (const line of tool('readelf', ['-sW', file]).split('\n')) {
    const m = /^\s+\d+: ([0-9a-f]+)\s+\d+ FUNC\s+\w+\s+\w+\s+\d+ (\w+)$/.exec(line);
    if (m && (!functions.has(m[1]!) || names.includes(m[2]!))) functions.set(m[1]!, m[2]!);
  }
  const byOffset = new Map<string, string>();
  for (const line of tool('readelf', ['-A', file]).split('\n')) {
    const global = /^\s+[0-9a-f]+ (-?\d+)\(gp\) [0-9a-f]+ [0-9a-f]+ FUNC\s+UND (\w+)/.exec(line);
    const local = /^\s+[0-9a-f]+ (-?\d+)\(gp\) ([0-9a-f]+)$/.exec(line);
    if (global) byOffset.set(global[1]!, global[2]!);
    else if (local && functions.has(local[2]!)) byOffset.set(local[1]!, functions.get(local[2]!)!);
  }
  const out: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
  const reg = new Map<string, string>();
  for (const line of tool(t.objdump, ['-d', file]).split('\n')) {
    const load = /\tlw\t(\w+),(-?\d+)\(gp\)/.exec(line);
    const move = /\tmove\tt9,(\w+)/.exec(line);
    if (load) reg.set(load[1]!, byOffset.get(load[2]!) ?? '');
    else if (move) reg.set('t9', reg.get(move[1]!) ?? '');
    else if (/\t(jalr|jr)\tt9$/.test(line)) {
      const fn = reg.get('t9');
      if (fn && fn in out) out[fn]!++;
      reg.delete('t9');
    }
  }
  return out;
}

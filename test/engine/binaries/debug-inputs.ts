// Real debug-symbol inputs built with the system toolchains, for the engine and API tests:
//   ELF: a program built with `-g`, stripped (`strip`, plus `objcopy --add-gnu-debuglink`), its debug file
//        (`objcopy --only-keep-debug`), and a DWARF-only debug file (the debug file without .symtab).
//   PE:  a Windows x86-64 program and its PDB (clang + lld-link with CodeView), importing strcpy from msvcrt.dll
//        through an import library (llvm-dlltool) and defining its own sprintf.
// In both programs copy_name calls strcpy and format_it calls sprintf (main calls both helpers, and strcpy on PE).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ELF_SOURCE = `#include <stdio.h>
#include <string.h>
static char buf[64];
__attribute__((noinline)) void copy_name(const char *s) { strcpy(buf, s); }
__attribute__((noinline)) void format_it(const char *s) { sprintf(buf, "%s", s); copy_name(s); }
int main(int argc, char **argv) { copy_name(argv[0]); format_it(argv[0]); puts(buf); return 0; }
`;

export interface ElfDebugBuild {
  stripped: string;
  debug: string;
  dwarfOnly: string;
}

/** Builds `<name>` with `cc` and `flags` in `dir` and derives the stripped binary and its debug files. */
export function buildElfWithDebug(dir: string, name: string, cc: string, flags: string[]): ElfDebugBuild {
  const at = (f: string) => join(dir, f);
  writeFileSync(at(`${name}.c`), ELF_SOURCE);
  const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: dir, stdio: 'pipe' });
  run(cc, ['-O0', '-fno-builtin', ...flags, '-o', name, `${name}.c`]);
  run('objcopy', ['--only-keep-debug', name, `${name}.debug`]);
  run('strip', ['-o', `${name}.stripped`, name]);
  run('objcopy', [`--add-gnu-debuglink=${name}.debug`, `${name}.stripped`]);
  // GNU objcopy keeps .symtab on `--remove-section .symtab`; stripping everything but the DWARF removes it.
  run('objcopy', ['--strip-all', '--keep-section=.debug_*', `${name}.debug`, `${name}.dwarf.debug`]);
  return { stripped: at(`${name}.stripped`), debug: at(`${name}.debug`), dwarfOnly: at(`${name}.dwarf.debug`) };
}

export const PE_SOURCE = `char *strcpy(char *d, const char *s);
int sprintf(char *b, const char *f, ...) { char *d = b; while ((*d++ = *f++)) {} return (int)(d - b); }
static char buf[64];
void copy_name(const char *s) { strcpy(buf, s); }
void format_it(const char *s) { sprintf(buf, s); copy_name(s); }
int main(void) { copy_name("a"); format_it("b"); strcpy(buf, "c"); return 0; }
`;

export const PE_TOOLS = ['clang', 'lld-link', 'llvm-dlltool'];

/** Builds `<name>.exe` and `<name>.pdb` in `dir`. */
export function buildPeWithPdb(dir: string, name: string): { exe: string; pdb: string } {
  writeFileSync(join(dir, `${name}.c`), PE_SOURCE);
  writeFileSync(join(dir, 'msvcrt.def'), 'LIBRARY msvcrt.dll\nEXPORTS\nstrcpy\n');
  const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: dir, stdio: 'pipe' });
  run('llvm-dlltool', ['-m', 'i386:x86-64', '-d', 'msvcrt.def', '-l', 'msvcrt.lib']);
  run('clang', [
    '--target=x86_64-pc-windows-msvc', '-fuse-ld=lld', '-g', '-gcodeview', '-nostdlib', '-fno-builtin', '-O0',
    '-Wl,/entry:main', '-Wl,/debug', '-o', `${name}.exe`, `${name}.c`, 'msvcrt.lib',
  ]);
  return { exe: join(dir, `${name}.exe`), pdb: join(dir, `${name}.pdb`) };
}

/** Bytes of a built file. */
export const bytes = (path: string): Buffer => readFileSync(path);

// PE hardening and unsafe imports: PE images built here with clang and lld-link (each linker flag on and off),
// checked against llvm-readobj's view of the same headers, and nmap.exe from the corpus (values checked by
// hand with `objdump -p`: DllCharacteristics 0x8140, no load config, no security directory). Skipped with a
// notice when clang/lld/llvm tools are missing.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzePe } from '../../../src/engine/binaries/pe-binary.js';
import { corpus, haveShared } from '../../support/shared.js';
import { buildDir } from './toolchain.js';
import { needCommands } from '../../support/requirements.js';

const MSVCRT_DEF = 'LIBRARY msvcrt.dll\nEXPORTS\nstrcpy\nsprintf\nsystem\n_popen\n';
const PROGRAM = `char *strcpy(char *, const char *);
int sprintf(char *, const char *, ...);
int system(const char *);
void *_popen(const char *, const char *);
static char buf[64];
__declspec(dllexport) void copy2(const char *a) { strcpy(buf, a); strcpy(buf, "x"); }
__declspec(dllexport) void fmt(int x) { sprintf(buf, "%d", x); system(buf); _popen(buf, "r"); }
int main(void) { copy2("a"); fmt(1); return 0; }
`;
// IMAGE_LOAD_CONFIG_DIRECTORY32 up to GuardFlags, filled from the symbols lld-link defines (SafeSEH, CFG).
const LOAD_CONFIG_32 = `typedef struct {
  unsigned Size, TimeDateStamp; unsigned short MajorVersion, MinorVersion;
  unsigned GlobalFlagsClear, GlobalFlagsSet, CriticalSectionDefaultTimeout, DeCommitFreeBlockThreshold, DeCommitTotalFreeThreshold,
    LockPrefixTable, MaximumAllocationSize, VirtualMemoryThreshold, ProcessHeapFlags, ProcessAffinityMask;
  unsigned short CSDVersion, DependentLoadFlags;
  unsigned EditList, SecurityCookie, SEHandlerTable, SEHandlerCount, GuardCFCheckFunctionPointer, GuardCFDispatchFunctionPointer,
    GuardCFFunctionTable, GuardCFFunctionCount, GuardFlags;
} LoadConfig32;
extern void *__safe_se_handler_table, *__guard_fids_table;
extern unsigned char __safe_se_handler_count, __guard_fids_count, __guard_flags;
unsigned __security_cookie = 0xbb40e64e;
const LoadConfig32 _load_config_used = { sizeof(LoadConfig32), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (unsigned)&__security_cookie,
  (unsigned)&__safe_se_handler_table, (unsigned)&__safe_se_handler_count, 0, 0, (unsigned)&__guard_fids_table, (unsigned)&__guard_fids_count, (unsigned)&__guard_flags };
`;

/** The hardening from llvm-readobj's file headers and load config, by the rules pe-hardening.ts states. */
function readobjHardening(file: string) {
  const text = execFileSync('llvm-readobj', ['--file-headers', '--coff-load-config', file]).toString();
  const has = (flag: string): boolean => text.includes(`IMAGE_DLL_CHARACTERISTICS_${flag} `);
  const field = (name: string): number | undefined => {
    const m = new RegExp(`\\b${name}: (0x[0-9A-Fa-f]+|\\d+)`).exec(text);
    return m ? Number(m[1]) : undefined;
  };
  const is64 = /Format: COFF-x86-64/.test(text);
  const aslr = has('DYNAMIC_BASE') && !text.includes('IMAGE_FILE_RELOCS_STRIPPED ');
  const guardFlags = field('GuardFlags');
  return {
    nx: has('NX_COMPAT'),
    aslr,
    highEntropyVa: aslr && is64 && has('HIGH_ENTROPY_VA'),
    cfg: has('GUARD_CF') && (guardFlags === undefined || (guardFlags & 0x100) !== 0),
    safeSeh: is64 || has('NO_SEH') || ((field('SEHandlerTable') ?? 0) !== 0 && (field('SEHandlerCount') ?? 0) > 0),
    forceIntegrity: has('FORCE_INTEGRITY'),
    signed: (field('CertificateTableSize') ?? 0) > 0,
  };
}

describe.runIf(needCommands(['clang', 'ld.lld', 'llvm-dlltool', 'llvm-readobj'], 'the built-PE tests'))('PE images built with clang and lld-link', () => {
  const folder = buildDir('pe-hardening-', { 'msvcrt.def': MSVCRT_DEF, 'main.c': PROGRAM, 'lc.c': LOAD_CONFIG_32 });
  let dir = '';
  beforeAll(() => {
    dir = folder();
    execFileSync('llvm-dlltool', ['-d', 'msvcrt.def', '-l', 'msvcrt64.lib', '-m', 'i386:x86-64'], { cwd: dir });
    execFileSync('llvm-dlltool', ['-d', 'msvcrt.def', '-l', 'msvcrt32.lib', '-m', 'i386'], { cwd: dir });
  });

  const build = (name: string, bits: 32 | 64, flags: string[]): string => {
    const target = bits === 64 ? ['--target=x86_64-pc-windows-msvc'] : ['--target=i686-pc-windows-msvc'];
    const inputs = bits === 64 ? ['main.c', 'msvcrt64.lib'] : ['main.c', 'lc.c', 'msvcrt32.lib'];
    execFileSync('clang', [...target, '-fuse-ld=lld', '-nostdlib', '-Wl,/entry:main', '-O0', '-fno-builtin', ...flags.map((f) => `-Wl,${f}`), '-o', name, ...inputs], { cwd: dir, stdio: 'pipe' });
    return join(dir, name);
  };

  const VARIANTS: Array<{ bits: 32 | 64; flags: string[]; expect: Record<string, boolean> }> = [
    { bits: 64, flags: [], expect: { nx: true, aslr: true, highEntropyVa: true, cfg: false, safeSeh: true, forceIntegrity: false, signed: false } },
    { bits: 64, flags: ['/highentropyva:no'], expect: { aslr: true, highEntropyVa: false } },
    { bits: 64, flags: ['/dynamicbase:no'], expect: { aslr: false, highEntropyVa: false } },
    { bits: 64, flags: ['/fixed'], expect: { aslr: false } },
    { bits: 64, flags: ['/nxcompat:no'], expect: { nx: false } },
    { bits: 64, flags: ['/integritycheck'], expect: { forceIntegrity: true } },
    { bits: 32, flags: [], expect: { nx: true, aslr: true, highEntropyVa: false, safeSeh: true, cfg: false } },
    { bits: 32, flags: ['/safeseh:no'], expect: { safeSeh: false } },
    { bits: 32, flags: ['/guard:cf'], expect: { cfg: true } },
    { bits: 32, flags: ['/dynamicbase:no', '/nxcompat:no'], expect: { aslr: false, nx: false } },
  ];

  for (const v of VARIANTS) {
    it(`PE${v.bits === 64 ? '32+' : '32'} ${v.flags.join(' ') || 'defaults'}: hardening as llvm-readobj shows it`, async () => {
      const file = build(`v${v.bits}${v.flags.join('')}.exe`.replace(/[/:]/g, '_'), v.bits, v.flags);
      const { binary, mitigationsApply } = await analyzePe('app.exe', readFileSync(file));
      expect(binary.format).toBe('pe');
      expect(binary.hardening).toEqual(readobjHardening(file));
      expect(binary.hardening).toMatchObject(v.expect);
      expect(mitigationsApply).toBe(true);
    });
  }

  for (const bits of [64, 32] as const) {
    it(`PE${bits === 64 ? '32+' : '32'}: counts calls through import thunks and names exports`, async () => {
      const { binary } = await analyzePe('app.exe', readFileSync(build(`calls${bits}.exe`, bits, [])));
      expect(binary).toMatchObject({ arch: bits === 64 ? 'x86_64' : 'x86', bits, callSitesDecoded: true, unsafeUses: 5, symbols: { imported: 4, exported: 2 } });
      expect(Object.fromEntries(binary.unsafeFunctions.map((f) => [f.symbol, [f.name, f.callSites]]))).toEqual({
        strcpy: ['strcpy', 2],
        sprintf: ['sprintf', 1],
        system: ['system', 1],
        _popen: ['popen', 1],
      });
    });
  }

  it('sees an Authenticode certificate in the security directory', async () => {
    const unsigned = readFileSync(build('signed.exe', 64, []));
    // Append a WIN_CERTIFICATE (revision 2.0, PKCS_SIGNED_DATA) and point data directory 4 at it (a file offset).
    const cert = Buffer.alloc(16);
    cert.writeUInt32LE(16, 0);
    cert.writeUInt16LE(0x200, 4);
    cert.writeUInt16LE(2, 6);
    const signed = Buffer.concat([unsigned, Buffer.alloc((8 - (unsigned.length % 8)) % 8), cert]);
    const opt = signed.readUInt32LE(0x3c) + 24;
    signed.writeUInt32LE(signed.length - 16, opt + 112 + 4 * 8);
    signed.writeUInt32LE(16, opt + 112 + 4 * 8 + 4);
    writeFileSync(join(dir, 'signed.exe'), signed);
    const { binary } = await analyzePe('signed.exe', signed);
    expect(binary.hardening).toMatchObject({ signed: true });
    expect(readobjHardening(join(dir, 'signed.exe')).signed).toBe(true);
  });
});

describe.runIf(haveShared('corpus', 'nmap.exe'))('nmap.exe', () => {
  it('has DEP and ASLR, no SafeSEH table, no CFG, no signature; the CRT is linked in, so no unsafe import', async () => {
    const { binary, mitigationsApply } = await analyzePe('nmap.exe', readFileSync(corpus('nmap.exe')));
    expect(binary).toMatchObject({ format: 'pe', type: 'executable', arch: 'x86', bits: 32, callSitesDecoded: true, unsafeFunctions: [], unsafeUses: 0 });
    expect(binary.hardening).toEqual({ nx: true, aslr: true, highEntropyVa: false, cfg: false, safeSeh: false, forceIntegrity: false, signed: false });
    // WS2_32 imported by ordinal: #23 socket and #2 bind.
    expect(binary.networkFacing).toBe(true);
    expect(binary.symbols.imported).toBe(178);
    expect(mitigationsApply).toBe(true);
  });
});

describe('UEFI TE images', () => {
  it('are binaries without hardening headers, and held to no Windows mitigation rule', async () => {
    // EFI_TE_IMAGE_HEADER: 'VZ', machine x64, no sections, subsystem EFI boot service driver, stripped size 0x1e0.
    const te = Buffer.alloc(64);
    te.write('VZ', 0, 'latin1');
    te.writeUInt16LE(0x8664, 2);
    te[5] = 11;
    te.writeUInt16LE(0x1e0, 6);
    const { binary, mitigationsApply } = await analyzePe('Module.te', te);
    expect(binary).toMatchObject({ format: 'te', arch: 'x86_64', bits: 64, callSitesDecoded: false, unsafeFunctions: [], unsafeUses: 0 });
    expect(Object.values(binary.hardening).every((v) => v === false)).toBe(true);
    expect(mitigationsApply).toBe(false);
  });
});

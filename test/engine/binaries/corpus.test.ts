// Binary analysis of the real ELFs of ../shared/corpus (skipped with a notice when absent). The three
// andrew-d/static-binaries programs are static and stripped: their hardening is checked against readelf, and
// with no symbol left no unsafe function can be named (objdump names none either). The dropbear bundle is
// static but keeps its symbols (static PIC MIPS: calls go through local GOT entries) and ships a dynamic libz;
// their call-site counts were checked against `objdump -d` + `readelf -A` and are also re-checked here when
// the MIPS binutils are installed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeElf } from '../../../src/engine/binaries/elf-binary.js';
import { corpus, haveShared } from '../../support/shared.js';
import { haveCompiler, objdumpMipsGotCalls, readelfHardening, TOOLCHAINS } from './toolchain.js';

const STRIPPED_STATIC = [
  { file: 'busybox-mipsel', arch: 'mipsel', hardening: { nx: false, pie: false, relro: 'none', canary: false, fortify: false, stripped: true } },
  { file: 'tcpdump-linux-arm', arch: 'arm', hardening: { nx: true, pie: false, relro: 'none', canary: false, fortify: false, stripped: true } },
  { file: 'ncat-linux-x86_64', arch: 'x86_64', hardening: { nx: false, pie: false, relro: 'none', canary: false, fortify: false, stripped: true } },
];

describe('stripped static corpus ELFs', () => {
  for (const sample of STRIPPED_STATIC) {
    it.runIf(haveShared('corpus', sample.file))(`${sample.file}: hardening as readelf says, no nameable unsafe function`, async () => {
      const binary = await analyzeElf(sample.file, readFileSync(corpus(sample.file)));
      expect(binary).toMatchObject({ format: 'elf', type: 'executable', arch: sample.arch, bits: sample.arch === 'x86_64' ? 64 : 32, callSitesDecoded: true });
      expect(binary!.hardening).toMatchObject(sample.hardening);
      expect(binary!.hardening).toEqual(readelfHardening(corpus(sample.file)));
      expect(binary!.unsafeFunctions).toEqual([]);
      expect(binary!.unsafeUses).toBe(0);
    });
  }
});

/** Call sites per symbol, as checked against objdump. */
const DROPBEAR: Record<string, { type: string; calls: Record<string, number>; networkFacing: boolean }> = {
  dropbear: { type: 'executable', calls: { strcpy: 10, popen: 1, execve: 2, execl: 1, strcat: 4, execv: 1, sprintf: 4 }, networkFacing: true },
  // Links socket and listen from dropbear's shared network code, though it never serves.
  dropbearkey: { type: 'executable', calls: { strcpy: 8, execve: 1, vsscanf: 1, sscanf: 1, execv: 1, sprintf: 4, vfscanf: 1 }, networkFacing: true },
  dropbearconvert: { type: 'executable', calls: { strcpy: 7, execve: 1, vsscanf: 1, sscanf: 0, execv: 1, sprintf: 4, vfscanf: 1 }, networkFacing: true },
  'libz.so.1.2.3': { type: 'shared-object', calls: { sprintf: 1, strcat: 1, strcpy: 2 }, networkFacing: false },
};

describe.runIf(haveShared('corpus', 'dropbearStaticMipsel.tar.bz2'))('dropbear static MIPS bundle', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dropbear-'));
    execFileSync('tar', ['-xjf', corpus('dropbearStaticMipsel.tar.bz2'), '-C', dir]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [name, expected] of Object.entries(DROPBEAR)) {
    it(`${name}: unsafe functions, call sites and callers`, async () => {
      const file = join(dir, 'dropbearStaticMipsel', name);
      const binary = await analyzeElf(name, readFileSync(file));
      expect(binary).toMatchObject({ type: expected.type, arch: 'mipsel', networkFacing: expected.networkFacing });
      expect(Object.fromEntries(binary!.unsafeFunctions.map((f) => [f.symbol, f.callSites]))).toEqual(expected.calls);
      expect(binary!.unsafeFunctions.every((f) => f.linkage === (expected.type === 'executable' ? 'static' : 'imported'))).toBe(true);
      expect(binary!.unsafeUses).toBe(Object.values(expected.calls).reduce((a, b) => a + b, 0));
      expect(binary!.hardening).toEqual(readelfHardening(file));
      const mips = TOOLCHAINS.find((t) => t.label === 'mipsel')!;
      if (haveCompiler(mips)) expect(objdumpMipsGotCalls(mips, file, Object.keys(expected.calls))).toEqual(expected.calls);
    });
  }

  it('names the callers of each call site', async () => {
    const binary = await analyzeElf('dropbear', readFileSync(join(dir, 'dropbearStaticMipsel', 'dropbear')));
    const popen = binary!.unsafeFunctions.find((f) => f.symbol === 'popen');
    expect(popen?.callers).toEqual([{ function: 'x11setauth', callSites: 1 }]);
    const strcat = binary!.unsafeFunctions.find((f) => f.symbol === 'strcat');
    expect(strcat?.callers).toContainEqual({ function: 'svr_auth_pubkey', callSites: 2 });
  });
});

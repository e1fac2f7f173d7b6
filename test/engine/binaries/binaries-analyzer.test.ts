// The 'binaries' analysis stage on a folder of binaries built here, and on the TRENDnet corpus image unpacked
// by the engine: ScanResult.binaries entries, one CWE-676 and at most one CWE-693 finding per binary, stable
// fingerprints, severity raised for network-facing binaries, and malformed files noted without stopping.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisContext } from '../../../src/engine/analyzer.js';
import { createBinariesAnalyzer } from '../../../src/engine/binaries/binaries.analyzer.js';
import { totalUnsafeUses } from '../../../src/engine/binaries/unsafe-functions.js';
import { FileIndex } from '../../../src/engine/file-index.js';
import { unpack } from '../../../src/engine/unpack/driver.js';
import { corpus, haveShared } from '../../support/shared.js';
import { runInventory } from '../inventory/support.js';
import { haveCompiler, TOOLCHAINS } from './toolchain.js';

/** The binaries analyzer over `index`, run by the inventory tests' runner (which takes any analyzer). */
const analyze = (index: FileIndex, maxFileSize?: number): Promise<AnalysisContext> => runInventory(index, createBinariesAnalyzer({ maxFileSize }));

/** A corpus image unpacked by the engine and analysed, for the describe block (the tree is removed afterAll). */
function analysedCorpusImage(name: string): () => AnalysisContext {
  let work = '';
  let ctx: AnalysisContext;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'binaries-corpus-'));
    const unpacked = await unpack(corpus(name), work, {});
    ctx = await analyze(new FileIndex(work, unpacked.files));
  }, 120_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  return () => ctx;
}

const program = (copies: number): string => `#include <string.h>
#include <stdlib.h>
char buf[64];
void copy(const char *a) { ${'strcpy(buf, a); '.repeat(copies)}}
int main(int argc, char **argv) { copy(argv[0]); return system(argv[1]); }
`;

describe.runIf(haveCompiler(TOOLCHAINS[0]!))('binaries analyzer on a folder', () => {
  let root = '';
  const gcc = (dir: string, out: string, source: string, flags: string[]): void => {
    writeFileSync(join(dir, 'src.c'), source);
    execFileSync('gcc', ['-O0', '-fno-builtin', ...flags, '-o', join(dir, out), join(dir, 'src.c')], { stdio: 'pipe' });
  };
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'binaries-analyzer-'));
    mkdirSync(join(root, 'usr/sbin'), { recursive: true });
    mkdirSync(join(root, 'usr/bin'), { recursive: true });
    gcc(root, 'usr/sbin/httpd', program(2), ['-fno-stack-protector']);
    gcc(root, 'usr/bin/tool', program(1), ['-fstack-protector-all', '-Wl,-z,relro,-z,now']);
    gcc(root, 'usr/bin/hardened', 'int main(void){return 0;}\n', ['-fstack-protector-all', '-Wl,-z,relro,-z,now']);
    writeFileSync(join(root, 'usr/bin/script'), '#!/bin/sh\necho hi\n'.repeat(8));
    // An ELF header that promises program headers past the end of the file.
    writeFileSync(join(root, 'usr/bin/broken'), Buffer.concat([readFileSync(join(root, 'usr/bin/tool')).subarray(0, 64), Buffer.alloc(8)]));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reports every binary, with findings for unsafe functions and missing mitigations', async () => {
    const ctx = await analyze(await FileIndex.fromDirectory(root));
    expect(ctx.binaries!.map((b) => b.path).sort()).toEqual(['usr/bin/hardened', 'usr/bin/tool', 'usr/sbin/httpd']);
    const httpd = ctx.binaries!.find((b) => b.path === 'usr/sbin/httpd')!;
    expect(httpd).toMatchObject({ networkFacing: true, unsafeUses: 3, callSitesDecoded: true });
    expect(totalUnsafeUses(ctx.binaries!)).toBe(3 + 2);

    const byRule = (path: string, rule: string) => ctx.findings.filter((f) => f.occurrences[0]!.path === path && f.pname === rule);
    expect(byRule('usr/sbin/httpd', 'unsafe-function-use')).toMatchObject([{ severity: 'medium', identifiers: [{ cwe: 'CWE-676' }] }]);
    expect(byRule('usr/sbin/httpd', 'unsafe-function-use')[0]!.description).toContain('strcpy (imported, 2 call sites: copy ×2)');
    expect(byRule('usr/sbin/httpd', 'missing-binary-hardening')).toMatchObject([{ severity: 'medium', identifiers: [{ cwe: 'CWE-693' }] }]);
    expect(byRule('usr/sbin/httpd', 'missing-binary-hardening')[0]!.name).toContain('stack canary');
    expect(byRule('usr/bin/tool', 'unsafe-function-use')).toMatchObject([{ severity: 'low' }]);
    expect(byRule('usr/bin/tool', 'missing-binary-hardening')).toEqual([]);
    expect(ctx.findings.filter((f) => f.occurrences[0]!.path === 'usr/bin/hardened')).toEqual([]);
    expect(ctx.problems).toMatchObject([{ path: 'usr/bin/broken', source: 'binaries', kind: 'warning' }]);
  });

  it('keeps the fingerprint when the call sites change', async () => {
    const first = await analyze(await FileIndex.fromDirectory(root));
    gcc(root, 'usr/sbin/httpd', program(5), ['-fno-stack-protector']);
    const second = await analyze(await FileIndex.fromDirectory(root));
    const unsafe = (ctx: AnalysisContext) => ctx.findings.find((f) => f.pname === 'unsafe-function-use' && f.occurrences[0]!.path === 'usr/sbin/httpd')!;
    expect(unsafe(second).fingerprint).toBe(unsafe(first).fingerprint);
    expect(unsafe(second).description).not.toBe(unsafe(first).description);
    expect(new Set(second.findings.map((f) => f.fingerprint)).size).toBe(second.findings.length);
  });

  it('skips files over the size limit with a note', async () => {
    const ctx = await analyze(await FileIndex.fromDirectory(root), 1000);
    expect(ctx.binaries ?? []).toEqual([]);
    expect(ctx.problems.some((p) => p.kind === 'limit' && p.path === 'usr/sbin/httpd')).toBe(true);
  });
});

describe.runIf(haveShared('corpus', 'trendnet-tew733gr-rootfs.squashfs'))('binaries analyzer on the TRENDnet TEW-733GR root filesystem', () => {
  const analysed = analysedCorpusImage('trendnet-tew733gr-rootfs.squashfs');
  let ctx: AnalysisContext;
  beforeAll(() => {
    ctx = analysed();
  });

  const find = (fsPath: string) => ctx.binaries!.find((b) => b.path.endsWith(`squashfs-v4${fsPath}`));

  it('analyses every ELF (MIPS little-endian, uClibc), with call sites checked against objdump + readelf -A', () => {
    expect(ctx.binaries).toHaveLength(106);
    expect(ctx.binaries!.every((b) => b.arch === 'mipsel' && b.callSitesDecoded)).toBe(true);
    expect(ctx.problems.filter((p) => p.source === 'binaries')).toEqual([]);
    const calls = (fsPath: string) => Object.fromEntries(find(fsPath)!.unsafeFunctions.map((f) => [f.symbol, f.callSites]));
    expect(calls('/sbin/httpd')).toEqual({ strcpy: 13, popen: 1, sprintf: 23, execve: 1, system: 1 });
    expect(calls('/htdocs/cgibin')).toEqual({ strcpy: 21, popen: 1, sprintf: 49, execl: 1, strcat: 6, system: 9 });
    expect(calls('/usr/sbin/telnetd')).toEqual({ strcpy: 1, execv: 1 });
    // libc implements them; it is not a user of them.
    expect(find('/lib/libuClibc-0.9.30.1.so')).toMatchObject({ type: 'shared-object', unsafeFunctions: [] });
    expect(find('/usr/sbin/telnetd')).toMatchObject({ networkFacing: true, hardening: { nx: false, relro: 'none', canary: false } });
  });

  it('gives one finding per rule and binary at most', () => {
    const unsafe = ctx.findings.filter((f) => f.pname === 'unsafe-function-use');
    const hardening = ctx.findings.filter((f) => f.pname === 'missing-binary-hardening');
    expect(unsafe).toHaveLength(ctx.binaries!.filter((b) => b.unsafeFunctions.length).length);
    expect(hardening.length).toBeLessThanOrEqual(ctx.binaries!.length);
    expect(ctx.findings).toHaveLength(unsafe.length + hardening.length);
    expect(ctx.findings.find((f) => f.name.includes('/sbin/httpd:'))?.severity).toBe('medium');
  });
});

describe.runIf(haveShared('corpus', 'openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin'))('binaries analyzer on the OpenWrt 19.07 (MT7621, musl) image', () => {
  // OpenWrt's binaries have no section headers (sstrip: objdump cannot disassemble them, so these numbers are
  // regression values), and most userland is MIPS16, which is not decoded: those count their imports.
  const analysed = analysedCorpusImage('openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin');
  let ctx: AnalysisContext;
  beforeAll(() => {
    ctx = analysed();
  });

  const find = (fsPath: string) => ctx.binaries!.find((b) => b.path.endsWith(`squashfs-v4${fsPath}`))!;

  it('counts imports of MIPS16 binaries and decodes the others from their program headers', () => {
    expect(ctx.binaries).toHaveLength(64);
    expect(ctx.binaries!.filter((b) => b.callSitesDecoded)).toHaveLength(7);
    const busybox = find('/bin/busybox');
    expect(busybox).toMatchObject({ callSitesDecoded: false, unsafeUses: 12, networkFacing: true, hardening: { nx: true, pie: false, relro: 'full', canary: true, stripped: true } });
    const calls = (fsPath: string) => Object.fromEntries(find(fsPath).unsafeFunctions.map((f) => [f.symbol, f.callSites]));
    expect(calls('/lib/libfstools.so')).toEqual({ sprintf: 3, sscanf: 4, system: 6, execl: 1, fscanf: 1, strcpy: 1 });
    expect(calls('/usr/sbin/dropbear')).toEqual({ execvp: 2, execv: 1, sscanf: 1, popen: 1, strcpy: 1 });
    // A non-PIC executable calling through .plt stubs found via DT_JMPREL.
    expect(calls('/usr/bin/usign')).toEqual({ sprintf: 1 });
    expect(ctx.findings.filter((f) => f.pname === 'unsafe-function-use')).toHaveLength(50);
    expect(ctx.findings.filter((f) => f.pname === 'missing-binary-hardening')).toHaveLength(12);
  });
});

describe.runIf(haveShared('corpus', 'bzImage_xz'))('binaries analyzer on a Linux kernel', () => {
  const analysed = analysedCorpusImage('bzImage_xz');
  it('types the vmlinux inside bzImage as a kernel and raises no userland mitigation finding', () => {
    expect(analysed().binaries).toMatchObject([{ type: 'kernel', arch: 'x86', bits: 32, hardening: { nx: false, relro: 'none' } }]);
    expect(analysed().findings).toEqual([]);
  });
});

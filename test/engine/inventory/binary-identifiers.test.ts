import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileIndex } from '../../../src/engine/file-index.js';
import { createInventoryAnalyzer } from '../../../src/engine/inventory/inventory.analyzer.js';
import { libraryName } from '../../../src/engine/inventory/library-names.js';
import { versionFromString } from '../../../src/engine/inventory/pe-version.identifier.js';
import type { FileNode } from '../../../src/engine/types.js';
import { buildPe, versionInfo } from '../binaries/pe-builder.js';
import { inventoryOfDirectory, runInventory } from './support.js';

let root = '';
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('ELF metadata', () => {
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'elfmeta-'));
    mkdirSync(join(root, 'src'));
    mkdirSync(join(root, 'fs/lib'), { recursive: true });
    mkdirSync(join(root, 'fs/usr/sbin'), { recursive: true });
    // A zlib-like library whose file name carries the release, and a daemon with a version banner that needs it.
    writeFileSync(join(root, 'src/z.c'), 'const char deflate_copyright[] = " deflate 1.2.11 Copyright 1995-2017 Jean-loup Gailly and Mark Adler ";\nint deflate(void){return 0;}\n');
    writeFileSync(join(root, 'src/d.c'), 'int deflate(void);\nconst char *v = "dnsmasq-2.80";\nint main(void){return deflate() + (v[0] == 0);}\n');
    const gcc = (...args: string[]) => execFileSync('gcc', args, { cwd: root, stdio: 'pipe' });
    gcc('-shared', '-fPIC', '-Wl,-soname,libz.so.1', '-Wl,--build-id=sha1', '-o', 'fs/lib/libz.so.1.2.11', 'src/z.c');
    gcc('-o', 'fs/usr/sbin/dnsmasq', 'src/d.c', 'fs/lib/libz.so.1.2.11');
  });

  it('identifies libraries by file name, links DT_NEEDED to components, and adds architecture and build-id', async () => {
    const { components } = await inventoryOfDirectory(join(root, 'fs'));
    const zlib = components.find((c) => c.name === 'zlib')!;
    expect(zlib).toMatchObject({ version: '1.2.11', cpe: 'cpe:2.3:a:zlib:zlib:1.2.11:*:*:*:*:*:*:*', paths: ['lib/libz.so.1.2.11'] });
    expect(zlib.foundBy.sort()).toEqual(['elf-metadata', 'version-signatures']);
    expect(zlib.evidence.map((e) => e.method).sort()).toEqual(['elf-build-id', 'library-file-name', 'version-signature']);
    expect(zlib.architecture).toBe(process.arch === 'arm64' ? 'aarch64' : 'x86_64');
    expect(zlib.hashes?.md5).toMatch(/^[0-9a-f]{32}$/);
    const dnsmasq = components.find((c) => c.name === 'dnsmasq')!;
    expect(dnsmasq.version).toBe('2.80');
    expect(dnsmasq.dependsOn).toEqual([zlib.ref]);
  });

  it('identifies a renamed library by the version-script names it defines, without claiming a version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verdef-'));
    try {
      writeFileSync(join(dir, 'c.c'), 'int EVP_foo(void){return 1;}\n');
      writeFileSync(join(dir, 'c.map'), 'OPENSSL_1_1_0 { global: EVP_foo; local: *; };\nOPENSSL_1_1_1 { } OPENSSL_1_1_0;\n');
      mkdirSync(join(dir, 'fs'));
      execFileSync('gcc', ['-shared', '-fPIC', '-Wl,--version-script=c.map', '-o', 'fs/libvendorcrypto.so', 'c.c'], { cwd: dir, stdio: 'pipe' });
      const { components } = await inventoryOfDirectory(join(dir, 'fs'));
      expect(components).toHaveLength(1);
      expect(components[0]).toMatchObject({ name: 'openssl', paths: ['libvendorcrypto.so'] });
      expect(components[0].version).toBeUndefined();
      expect(components[0].evidence[0]).toMatchObject({ method: 'elf-version-definitions', match: expect.stringContaining('OPENSSL_1_1_0') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('contains a crashing identifier as a problem and keeps the others running', async () => {
    const crashing = { id: 'crashy', description: 'test', selects: () => true, identify: async () => { throw new Error('boom'); } };
    const { versionSignatureIdentifier } = await import('../../../src/engine/inventory/version-signatures.identifier.js');
    const index = await FileIndex.fromDirectory(join(root, 'fs'));
    const ctx = await runInventory(index, createInventoryAnalyzer([crashing, versionSignatureIdentifier]));
    expect(ctx.components.map((c) => c.name).sort()).toEqual(['dnsmasq', 'zlib']);
    expect(ctx.problems.filter((p) => p.source === 'crashy' && p.kind === 'error' && p.message.includes('boom')).length).toBe(2);
  });

  it('maps library names to families, with a release only where the name carries one', () => {
    expect(libraryName('libz.so.1.2.11')).toEqual({ family: 'zlib', version: '1.2.11' });
    expect(libraryName('libuClibc-0.9.30.1.so')).toEqual({ family: 'uclibc', version: '0.9.30.1' });
    expect(libraryName('ld-uClibc-1.0.31.so')).toEqual({ family: 'uclibc-ng', version: '1.0.31' });
    expect(libraryName('libc-2.31.so')).toEqual({ family: 'glibc', version: '2.31' });
    expect(libraryName('libpng16.so.16.37.0')).toEqual({ family: 'libpng', version: '1.6.37' });
    expect(libraryName('libssl.so.1.1')).toEqual({ family: 'openssl', version: undefined });
    // Debian bookworm libbearssl0 0.6+dfsg.1-3: /usr/lib/x86_64-linux-gnu/libbearssl.so.0.6, SONAME libbearssl.so.0
    expect(libraryName('libbearssl.so.0.6')).toEqual({ family: 'bearssl', version: '0.6' });
    expect(libraryName('libbearssl.so.0')).toEqual({ family: 'bearssl', version: undefined });
    expect(libraryName('libfoo.so.1')).toBeUndefined();
  });
});

describe('PE version resources', () => {
  it('reads release numbers from version strings', () => {
    expect(versionFromString('6.02')).toBe('6.02');
    expect(versionFromString('7, 80, 0, 1')).toBe('7.80.0.1');
    expect(versionFromString('v1.2.3 (build 4)')).toBe('1.2.3');
    expect(versionFromString('0.0.0.0')).toBeUndefined();
    expect(versionFromString('unknown')).toBeUndefined();
  });

  it('identifies a mapped product by its resource and an unknown one with its supplier', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pever-'));
    try {
      writeFileSync(join(dir, 'curl.exe'), buildPe({ imports: { 'KERNEL32.dll': ['ExitProcess'] }, version: versionInfo({ CompanyName: 'curl, https://curl.se/', ProductName: 'The curl executable', ProductVersion: '7.80.0' }, [7, 80, 0, 0]) }));
      writeFileSync(join(dir, 'widget.dll'), buildPe({ version: versionInfo({ CompanyName: 'Example Corp', ProductName: 'Widget Runtime', FileVersion: '2.1.0.7' }, [2, 1, 0, 7]) }));
      writeFileSync(join(dir, 'app.exe'), buildPe({ imports: { 'WIDGET.DLL': ['widget_init'] }, version: versionInfo({ ProductName: 'Widget App', ProductVersion: '1.0' }, [1, 0, 0, 0]) }));
      const { components } = await inventoryOfDirectory(dir);
      const widget = components.find((c) => c.name === 'Widget Runtime')!;
      expect(widget).toMatchObject({ version: '2.1.0.7', supplier: 'Example Corp', type: 'library', purl: 'pkg:generic/Widget%20Runtime@2.1.0.7', architecture: 'x86_64' });
      expect(widget.cpe).toBeUndefined();
      expect(widget.evidence[0]).toMatchObject({ method: 'pe-version-resource' });
      // Import tables link components by DLL file name, case-insensitively.
      expect(components.find((c) => c.name === 'Widget App')!.dependsOn).toEqual([widget.ref]);
      // 'The curl executable' is not a curated name: no CPE is guessed for it either.
      expect(components.find((c) => c.name === 'The curl executable')!.cpe).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("takes a distribution kernel's upstream release from the bzImage header, not its ABI name", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'khdr-'));
    try {
      writeFileSync(join(dir, 'vmlinux.xz'), Buffer.alloc(64, 0x5a));
      const index = new FileIndex(dir, [{
        kind: 'file', size: 64, type: 'data', depth: 1, path: 'vmlinux.xz', fsPath: '/vmlinux.xz', format: 'bzimage',
        // Debian bookworm's linux-image-6.1.0-57-amd64 6.1.192-3, /boot/vmlinuz-6.1.0-57-amd64
        meta: { kernelVersion: '6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)' },
      }]);
      const { components } = await runInventory(index);
      expect(components.map((c) => `${c.name} ${c.version} ${c.evidence[0].method}`)).toEqual(['linux 6.1.192 bzimage-header']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('UEFI modules', () => {
  it('reports each executable section as a module named by UI name and GUID, with the VERSION section', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'uefi-'));
    try {
      mkdirSync(join(dir, 'fv/D6A2CB7F-6A18-4E2F-B43B-9920A733700A_DxeCore'), { recursive: true });
      writeFileSync(join(dir, 'fv/D6A2CB7F-6A18-4E2F-B43B-9920A733700A_DxeCore/DxeCore.efi'), buildPe({}));
      writeFileSync(join(dir, 'fv/D6A2CB7F-6A18-4E2F-B43B-9920A733700A_DxeCore/dxe.depex'), Buffer.from([1, 2, 3]));
      const guid = 'D6A2CB7F-6A18-4E2F-B43B-9920A733700A';
      const base = { depth: 2, type: 'pe' };
      const nodes: FileNode[] = [
        { ...base, path: 'fv', fsPath: '/', kind: 'directory', size: 0 },
        { ...base, path: `fv/${guid}_DxeCore`, fsPath: `/${guid}_DxeCore`, kind: 'directory', size: 0, meta: { guid, uiName: 'DxeCore', fileType: 'DXE_CORE', version: '1.0' } },
        { ...base, path: `fv/${guid}_DxeCore/DxeCore.efi`, fsPath: `/${guid}_DxeCore/DxeCore.efi`, kind: 'file', size: buildPe({}).length, meta: { guid, uiName: 'DxeCore', fileType: 'DXE_CORE', sectionType: 'PE32' } },
        { ...base, path: `fv/${guid}_DxeCore/dxe.depex`, fsPath: `/${guid}_DxeCore/dxe.depex`, kind: 'file', size: 3, meta: { guid, sectionType: 'DXE_DEPEX' } },
      ];
      const { components } = await runInventory(new FileIndex(dir, nodes));
      expect(components).toHaveLength(1);
      expect(components[0]).toMatchObject({
        name: 'DxeCore',
        version: '1.0',
        type: 'firmware',
        architecture: 'x86_64',
        purl: `pkg:generic/uefi/DxeCore@1.0?guid=${guid}`,
      });
      expect(components[0].evidence[0].match).toContain(`GUID ${guid}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('kernel headers', () => {
  it('reads the bzImage kernel_version and the uImage name when the kernel body has no banner', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'khdr-'));
    try {
      writeFileSync(join(dir, 'vmlinux.lz4'), Buffer.alloc(64, 0x5a));
      writeFileSync(join(dir, 'MIPS OpenWrt Linux-5.4.43'), Buffer.alloc(64, 0x5a));
      writeFileSync(join(dir, 'MIPS Linux-RT'), Buffer.alloc(64, 0x5a));
      const base = { kind: 'file' as const, size: 64, type: 'data', depth: 1 };
      const index = new FileIndex(dir, [
        { ...base, path: 'vmlinux.lz4', fsPath: '/vmlinux.lz4', format: 'bzimage', meta: { kernelVersion: '5.4.72 (root@caesurus-ubuntu20-04) #1 Wed Oct 21 12:51:23 EDT 2020' } },
        { ...base, path: 'MIPS OpenWrt Linux-5.4.43', fsPath: '/MIPS OpenWrt Linux-5.4.43', format: 'uimage' },
        { ...base, path: 'MIPS Linux-RT', fsPath: '/MIPS Linux-RT', format: 'uimage' },
      ]);
      const { components } = await runInventory(index);
      expect(components.map((c) => `${c.version} ${c.evidence[0].method} ${c.cpe}`).sort()).toEqual([
        '5.4.43 uimage-name cpe:2.3:o:linux:linux_kernel:5.4.43:*:*:*:*:*:*:*',
        '5.4.72 bzimage-header cpe:2.3:o:linux:linux_kernel:5.4.72:*:*:*:*:*:*:*',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

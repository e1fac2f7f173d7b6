// Precision rules: header-time version strings in programs that load the library, distribution kernel banners,
// and product names in text databases.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needCommands } from '../../support/requirements.js';
import { fixtureTrees, inventoryOfDirectory } from './support.js';

const fixtures = fixtureTrees('inv-precision-');
afterAll(() => fixtures.cleanup());

describe.runIf(needCommands(['gcc'], 'the header-version tests'))('header-time version strings', () => {
  let root = '';
  beforeAll(() => {
    root = fixtures.tree({
      'src/ssl.c': 'const char *OpenSSL_version_text = "OpenSSL 3.0.11 19 Sep 2023";\nint SSL_new(void){return 1;}\n',
      'src/client.c': 'int SSL_new(void);\nconst char *built = "OpenSSL 3.0.2 15 Mar 2022";\nint main(void){return SSL_new() + (built[0] == 0);}\n',
      'src/static.c': 'const char *own = "OpenSSL 1.1.1w  11 Sep 2023";\nint main(void){return own[0] == 0;}\n',
    });
    mkdirSync(join(root, 'fs/usr/lib'), { recursive: true });
    mkdirSync(join(root, 'fs/usr/bin'), { recursive: true });
    const gcc = (...args: string[]) => execFileSync('gcc', args, { cwd: root, stdio: 'pipe' });
    gcc('-shared', '-fPIC', '-Wl,-soname,libssl.so.3', '-o', 'fs/usr/lib/libssl.so.3', 'src/ssl.c');
    gcc('-o', 'fs/usr/bin/client', 'src/client.c', 'fs/usr/lib/libssl.so.3');
    // A program with the string and no dynamic dependency on the library: a statically linked copy.
    gcc('-o', 'fs/usr/bin/static-tool', 'src/static.c');
  });

  it('attributes the string to the loaded library and warns about the mismatch instead of adding a component', async () => {
    const { components, problems } = await inventoryOfDirectory(join(root, 'fs'));
    const openssl = components.filter((c) => c.name === 'openssl');
    expect(openssl.map((c) => c.version).sort()).toEqual(['1.1.1w', '3.0.11']);
    const loaded = openssl.find((c) => c.version === '3.0.11')!;
    expect(loaded.paths[0]).toBe('usr/lib/libssl.so.3');
    expect(loaded.evidence).toContainEqual(expect.objectContaining({ path: 'usr/bin/client', method: 'build-header-version', match: expect.stringContaining('OpenSSL 3.0.2') }));
    expect(problems).toContainEqual(expect.objectContaining({ path: 'usr/bin/client', kind: 'warning', message: expect.stringContaining('built with openssl 3.0.2 headers but loads libssl.so.3') }));
    // The statically linked copy stays a component of its own.
    expect(openssl.find((c) => c.version === '1.1.1w')!.paths).toEqual(['usr/bin/static-tool']);
  });
});

const DEBIAN_BANNER = 'Linux version 6.1.0-50-armmp (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP Debian 6.1.176-1 (2025-05-30)\n';

describe('distribution kernels', () => {
  it('reports the upstream release of a Debian kernel, with the ABI name in the evidence and no conflict', async () => {
    const root = fixtures.tree({ 'boot/vmlinux-6.1.0-50-armmp': Buffer.concat([Buffer.alloc(64, 0x11), Buffer.from(`\0${DEBIAN_BANNER}\0`, 'latin1'), Buffer.alloc(64, 0x22)]) });
    const { components, problems } = await inventoryOfDirectory(root);
    expect(components).toHaveLength(1);
    expect(components[0]).toMatchObject({ name: 'linux', version: '6.1.176', cpe: 'cpe:2.3:o:linux:linux_kernel:6.1.176:*:*:*:*:*:*:*' });
    expect(components[0].evidence[0].match).toContain('6.1.0-50-armmp');
    expect(problems.filter((p) => p.kind !== 'skipped')).toEqual([]);
  });
});

describe('text databases', () => {
  it('takes no component from udev hwdb, locale data or man pages, but still from a firmware image', async () => {
    const vendor = Buffer.from('\0bios:vAmerican Megatrends Inc.:*\0OpenSSL 1.1.1g  21 Apr 2020\0', 'latin1');
    const root = fixtures.tree({
      'usr/lib/udev/hwdb.bin': Buffer.concat([Buffer.from('KSLPHHRH\0\0\0\0', 'latin1'), vendor]),
      'usr/share/locale/de/LC_MESSAGES/openssl.mo': Buffer.concat([Buffer.from([0xde, 0x12, 0x04, 0x95]), vendor]),
      'usr/share/man/man1/openssl.1': Buffer.concat([Buffer.from([0x01, 0x02]), vendor]),
      'firmware/bios.rom': Buffer.concat([Buffer.alloc(32, 0xff), Buffer.from('\0American Megatrends Inc.\0', 'latin1'), Buffer.alloc(32, 0xff)]),
    });
    const { components } = await inventoryOfDirectory(root);
    expect(components.map((c) => `${c.name}:${c.paths[0]}`)).toEqual(['aptio:firmware/bios.rom']);
  });

  it("takes no BIOS vendor from a Linux kernel's boot image whose EFI stub names one (x86 bzImage, arm64 Image)", async () => {
    // Debian bookworm's vmlinuz-6.1.0-57-amd64 holds L"American Megatrends" near its end, in the EFI stub
    const vendor = Buffer.from('\0\0American Megatrends\0\0', 'utf16le');
    const bzImage = Buffer.alloc(0x400);
    bzImage.writeUInt16LE(0xaa55, 0x1fe);
    bzImage.write('HdrS', 0x202, 'latin1');
    const arm64 = Buffer.alloc(0x400);
    arm64.write('MZ', 0, 'latin1');
    arm64.write('ARM\x64', 0x38, 'latin1');
    const root = fixtures.tree({
      'boot/vmlinuz': Buffer.concat([bzImage, vendor]),
      'boot/Image': Buffer.concat([arm64, vendor]),
      'firmware/AmiDxe.efi': Buffer.concat([Buffer.from('MZ'), Buffer.alloc(0x3fe), vendor]),
    });
    const { components } = await inventoryOfDirectory(root);
    expect(components.map((c) => `${c.name}:${c.paths[0]}`)).toEqual(['aptio:firmware/AmiDxe.efi']);
  });

  it.runIf(needCommands(['gcc'], 'the ELF context test'))('takes no BIOS vendor from a Linux program that lists vendors', async () => {
    const root = fixtures.tree({ 'src/t.c': 'const char *v[] = {"American Megatrends Inc.", "Phoenix SecureCore Technology"};\nint main(void){return v[0][0] == 0;}\n' });
    mkdirSync(join(root, 'fs'));
    execFileSync('gcc', ['-o', 'fs/dmidecode', 'src/t.c'], { cwd: root, stdio: 'pipe' });
    const { components } = await inventoryOfDirectory(join(root, 'fs'));
    expect(components).toEqual([]);
  });
});

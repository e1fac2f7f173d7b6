// End-to-end inventories of the corpus images through scan() (unpacker + inventory analyzer). Expectations
// were checked by hand on the images unpacked with standard tools (unsquashfs, xz, dd, strings, readelf):
//   OpenWrt mir3g: /usr/lib/opkg/status lists 66 packages; /etc/openwrt_release 'SNAPSHOT' r13499-7b4877c204 (also in
//     the fwtool JSON trailer before 'FWx0' at the end of the image);
//     uImage 'MIPS OpenWrt Linux-5.4.43'; 'BusyBox v1.31.1 ()'; dropbear '2019.78' next to 'Dropbear server v%s';
//     dnsmasq '2.81' next to 'Dnsmasq version %s'; musl libc.so '1.1.24'; pppd '2.4.8'; xtables '1.8.4'.
//   TRENDnet TEW-733GR: 'BusyBox v1.14.1 (2013-09-17 ...)', 'dnsmasq-2.45', 'hostapd v0.5.9', ip6tables '1.4.7',
//     'OpenSSL 0.9.8g 19 Oct 2007', pppd '2.4.2b3', udhcpd '0.9.8', ld-uClibc-0.9.30.1.so; libgcc_s.so.1 carries
//     both 'GCC: (GNU) 3.3.2' and 'GCC: (GNU) 4.3.3' (no version claimed).
//   TP-Link MR3020: 'U-Boot 1.1.4 (Sep 21 2015 - 17:19:11)' at 0x3740; kernel 'Linux version 2.6.31--LSDK-9.2.0.312'.
//   bzImage_xz: vmlinux 'Linux version 5.4.72 (root@caesurus-ubuntu20-04)'.
//   coreboot.rom: 'This image was built using coreboot 4.8-1521-gfc7d0199cb'.
//   ApolloLake-Fsp.fd: FSP_INFO_HEADER ImageRevision 0x01040301 ('$APLFSP$') = 1.4.3.1.
//   OVMF_CODE.secboot.fd: EDK II build paths; DxeCore module GUID D6A2CB7F-6A18-4E2F-B43B-9920A733700A.
//   dropbearStaticMipsel.tar.bz2: 'SSH-2.0-dropbear_0.52'; ' deflate 1.2.3 Copyright 1995-2005'.
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inferEdk2Release, parseMarkers } from '../../../src/engine/inventory/edk2-markers.js';
import { identifiers } from '../../../src/engine/inventory/identifiers.js';
import { createInventoryAnalyzer, inventoryAnalyzer } from '../../../src/engine/inventory/inventory.analyzer.js';
import { scan } from '../../../src/engine/scan.js';
import type { ScanResult } from '../../../src/engine/types.js';
import { cycloneDxReport } from '../../../src/reports/sbom-cyclonedx.js';
import { spdxReport } from '../../../src/reports/sbom-spdx.js';
import { schemaValidator } from '../../reports/schema-validate.js';
import { corpus, haveShared } from '../../support/shared.js';

const work: string[] = [];
afterAll(() => work.forEach((w) => rmSync(w, { recursive: true, force: true })));

async function scanned(name: string): Promise<ScanResult> {
  const dir = mkdtempSync(join(tmpdir(), 'inv-corpus-'));
  work.push(dir);
  return scan(corpus(name), { workDir: dir, analyzers: [inventoryAnalyzer] });
}

const cpes = (r: ScanResult) => r.components.map((c) => c.cpe).filter(Boolean).sort();
const byName = (r: ScanResult, name: string) => r.components.find((c) => c.name === name);

const OPENWRT = 'openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin';

describe.runIf(haveShared('corpus', OPENWRT))('OpenWrt sysupgrade image', () => {
  let result: ScanResult;

  it('lists the 66 opkg packages and the OS, each with a version, and exactly the CPEs its evidence supports', async () => {
    result = await scanned(OPENWRT);
    expect(result.components).toHaveLength(67);
    expect(result.components.every((c) => c.version !== undefined)).toBe(true);
    expect(cpes(result)).toEqual([
      'cpe:2.3:a:busybox:busybox:1.31.1:*:*:*:*:*:*:*',
      'cpe:2.3:a:dropbear_ssh_project:dropbear_ssh:2019.78:*:*:*:*:*:*:*',
      'cpe:2.3:a:gnu:gcc:8.4.0:*:*:*:*:*:*:*',
      'cpe:2.3:a:json-c:json-c:0.13.1:*:*:*:*:*:*:*',
      'cpe:2.3:a:musl-libc:musl:1.1.24:*:*:*:*:*:*:*',
      'cpe:2.3:a:netfilter:iptables:1.8.4:*:*:*:*:*:*:*',
      'cpe:2.3:a:point-to-point_protocol_project:point-to-point_protocol:2.4.8:*:*:*:*:*:*:*',
      'cpe:2.3:a:thekelleys:dnsmasq:2.81:*:*:*:*:*:*:*',
      'cpe:2.3:o:linux:linux_kernel:5.4.43:*:*:*:*:*:*:*',
    ]);
  });

  it('confirms packages with their binaries (evidence, hashes, architecture) and the kernel with the vmlinux', () => {
    const busybox = byName(result, 'busybox')!;
    expect(busybox).toMatchObject({ version: '1.31.1-1', purl: 'pkg:openwrt/busybox@1.31.1-1?arch=mipsel_24kc', architecture: 'mipsel' });
    expect(busybox.paths[0]).toMatch(/\/bin\/busybox$/);
    expect(busybox.evidence.some((e) => e.method === 'version-signature' && e.match?.includes('BusyBox v1.31.1'))).toBe(true);
    expect(busybox.hashes?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(byName(result, 'dropbear')!.dependsOn).toContain('libc@1.1.24-2');
    const kernel = byName(result, 'kernel')!;
    expect(kernel.evidence.some((e) => e.method === 'version-signature' && e.match?.startsWith('Linux version 5.4.43'))).toBe(true);
    expect(kernel.paths[0]).toMatch(/uimage\//);
    const os = byName(result, 'openwrt')!;
    expect(os).toMatchObject({ version: 'SNAPSHOT r13499-7b4877c204', type: 'operating-system' });
    // /etc/openwrt_release, /usr/lib/os-release and the sysupgrade fwtool trailer agree on one OS component.
    expect(os.evidence.map((e) => e.method)).toEqual(expect.arrayContaining(['os-release', 'openwrt-fwtool-metadata']));
    expect(os.evidence.find((e) => e.method === 'openwrt-fwtool-metadata')!.match).toContain('revision=r13499-7b4877c204');
  });

  it('yields SBOMs that validate against the official schemas and the CycloneDX validator', async () => {
    const cdx = String(await cycloneDxReport.generate({ result }));
    expect(schemaValidator('cyclonedx-1.6')(JSON.parse(cdx))).toEqual([]);
    expect(await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(cdx)).toBeNull();
    const spdx = JSON.parse(String(await spdxReport.generate({ result })));
    expect(schemaValidator('spdx-2.3')(spdx)).toEqual([]);
    expect(spdx.packages).toHaveLength(68);
  });
});

describe.runIf(haveShared('corpus', 'trendnet-tew733gr-rootfs.squashfs'))('TRENDnet root filesystem (vendor LZMA SquashFS)', () => {
  it('finds the binaries and libraries with their versions, and no version for the ambiguous libgcc', async () => {
    const result = await scanned('trendnet-tew733gr-rootfs.squashfs');
    expect(result.components.map((c) => `${c.name}@${c.version ?? ''}`).sort()).toEqual([
      'busybox@1.14.1',
      'dnsmasq@2.45',
      'hostapd@0.5.9',
      'iptables@1.4.7',
      'libgcc@',
      'openssl@0.9.8g',
      'ppp@2.4.2b3',
      // /usr/sbin/radvd and radvdump: 'Version: %s\n\n' followed by the bare '1.8'.
      'radvd@1.8',
      'uclibc@0.9.30.1',
      'udhcp@0.9.8',
    ]);
    expect(byName(result, 'openssl')!.paths.some((p) => p.endsWith('lib/libssl.so.0.9.8'))).toBe(true);
    expect(byName(result, 'libgcc')!.cpe).toBeUndefined();
    expect(result.components.every((c) => c.architecture === 'mipsel')).toBe(true);
  }, 120_000);
});

describe.runIf(haveShared('corpus', 'tplink-tl-mr3020-v1_3.17.2_test.tpl'))('TP-Link MR3020 firmware', () => {
  it('finds U-Boot 1.1.4 and Linux 2.6.31', async () => {
    const result = await scanned('tplink-tl-mr3020-v1_3.17.2_test.tpl');
    expect(cpes(result)).toEqual(['cpe:2.3:a:denx:u-boot:1.1.4:*:*:*:*:*:*:*', 'cpe:2.3:o:linux:linux_kernel:2.6.31:*:*:*:*:*:*:*']);
    expect(result.components).toHaveLength(2);
  });
});

describe.runIf(haveShared('corpus', 'bzImage_xz'))('x86 bzImage', () => {
  it('finds Linux 5.4.72 in the decompressed vmlinux', async () => {
    const result = await scanned('bzImage_xz');
    expect(result.components.map((c) => `${c.name}@${c.version}`)).toEqual(['linux@5.4.72']);
    expect(result.components[0].architecture).toBe('x86');
  });
});

describe.runIf(haveShared('corpus', 'coreboot.rom'))('coreboot ROM', () => {
  it('finds the coreboot release with the base version in the CPE', async () => {
    const result = await scanned('coreboot.rom');
    expect(result.components.map((c) => `${c.name}@${c.version} ${c.cpe}`)).toEqual(['coreboot@4.8-1521-gfc7d0199cb cpe:2.3:a:coreboot:coreboot:4.8:*:*:*:*:*:*:*']);
  });
});

describe.runIf(haveShared('corpus', 'ApolloLake-Fsp.fd'))('Intel FSP', () => {
  it('reads the FSP revision from FSP_INFO_HEADER and lists the FSP modules', async () => {
    const result = await scanned('ApolloLake-Fsp.fd');
    expect(byName(result, 'intel-fsp')).toMatchObject({ version: '1.4.3.1', type: 'firmware' });
    const modules = result.components.filter((c) => c.foundBy.includes('uefi-modules')).map((c) => c.name);
    expect(modules).toEqual(expect.arrayContaining(['FspInit', 'FspInitPreMem', 'MemoryInit', 'PeiCore', 'SiInit']));
  });
});

describe.runIf(haveShared('corpus', 'OVMF_CODE.secboot.fd'))('OVMF (EDK II)', () => {
  it('identifies the EDK II release from the build paths, attributes the modules to it, and lists them by GUID and name', async () => {
    const result = await scanned('OVMF_CODE.secboot.fd');
    // '/builddir/build/BUILD/edk2-f80f052277c8/…': the commit tagged edk2-stable202302 (git describe in tianocore/edk2).
    const edk2 = result.components.filter((c) => c.name === 'edk2');
    expect(edk2).toHaveLength(1);
    expect(edk2[0]).toMatchObject({ version: '202302', cpe: 'cpe:2.3:a:tianocore:edk2:202302:*:*:*:*:*:*:*' });
    const modules = result.components.filter((c) => c.foundBy.includes('uefi-modules'));
    expect(modules.length).toBeGreaterThan(100);
    expect(modules.every((m) => m.dependsOn?.includes(edk2[0].ref))).toBe(true);
    const dxeCore = byName(result, 'DxeCore')!;
    expect(dxeCore.purl).toContain('guid=D6A2CB7F-6A18-4E2F-B43B-9920A733700A');
    expect(dxeCore.architecture).toBe('x86_64');
    expect(result.components.filter((c) => c.type === 'firmware').length).toBeGreaterThan(100);
    // One CPE for the platform: the modules are matched through it, not each on its own.
    expect(result.components.filter((c) => c.cpe).map((c) => c.ref)).toEqual([edk2[0].ref]);
    // the release markers of its modules agree with the build paths (the paths decide when both are there)
    const markers = edk2[0].evidence.filter((e) => e.method === 'edk2-release-markers');
    expect(markers.length).toBeGreaterThan(0);
    expect(inferEdk2Release(markers.flatMap((e) => parseMarkers(e.match ?? '')))?.release).toBe('202302');
  }, 120_000);

  it('infers the same release from the release markers alone, as for a release build without build paths', async () => {
    // without the version signatures nothing reads the build paths: what is left is Debian's case (OVMF built
    // in release mode keeps no path and no release string)
    const dir = mkdtempSync(join(tmpdir(), 'inv-corpus-'));
    work.push(dir);
    const withoutPaths = createInventoryAnalyzer(identifiers.filter((i) => i.id !== 'version-signatures'));
    const result = await scan(corpus('OVMF_CODE.secboot.fd'), { workDir: dir, analyzers: [withoutPaths] });
    const edk2 = result.components.filter((c) => c.name === 'edk2');
    expect(edk2).toHaveLength(1);
    expect(edk2[0]).toMatchObject({ version: '202302', cpe: 'cpe:2.3:a:tianocore:edk2:202302:*:*:*:*:*:*:*' });
    expect(edk2[0]!.evidence.find((e) => e.method === 'edk2-release-inferred')?.match).toMatch(/^edk2-stable202302 or later: /);
    const modules = result.components.filter((c) => c.foundBy.includes('uefi-modules'));
    expect(modules.every((m) => m.dependsOn?.includes(edk2[0]!.ref))).toBe(true);
  }, 120_000);
});

describe.runIf(haveShared('corpus', 'dropbearStaticMipsel.tar.bz2'))('static Dropbear tarball', () => {
  it('finds Dropbear 0.52 and the zlib 1.2.3 it ships', async () => {
    const result = await scanned('dropbearStaticMipsel.tar.bz2');
    expect(result.components.map((c) => `${c.name}@${c.version}`).sort()).toEqual(['dropbear@0.52', 'zlib@1.2.3']);
    expect(byName(result, 'zlib')!.paths.some((p) => p.endsWith('libz.so.1.2.3'))).toBe(true);
  });
});

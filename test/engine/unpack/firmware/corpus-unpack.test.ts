// End to end through the recursive driver: the firmware and boot images of the corpus unpack down to what
// their format chains (corpus README, checked with mkimage, 7-Zip, cbfstool) say they contain.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unpack } from '../../../../src/engine/unpack/driver.js';
import { corpus, haveShared } from '../../../support/shared.js';

const work = mkdtempSync(join(tmpdir(), 'fw-corpus-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function unpackCorpus(name: string) {
  const result = await unpack(corpus(name), join(work, name));
  const paths = result.files.map((f) => f.path);
  const byName = (suffix: string) => result.files.filter((f) => f.path.endsWith(suffix));
  return { result, paths, byName };
}

describe('firmware and boot images through unpack()', () => {
  it.runIf(haveShared('corpus', 'openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin'))('OpenWrt sysupgrade: the uImage kernel named after its image name', async () => {
    const { byName, result } = await unpackCorpus('openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin');
    expect(byName('/MIPS OpenWrt Linux-5.4.43').filter((f) => f.format === 'uimage')).toMatchObject([{ size: 0x252786, offset: 0 }]);
    // The kernel behind OpenWrt's lzma-loader stub (LZMA at 0x163C of the image, 0x15FC of the payload).
    expect(result.files.find((f) => f.format === 'lzma' && f.size === 7709235)).toBeDefined();
    expect(result.stats.formats.uimage).toBe(1);
  }, 120_000);

  it.runIf(haveShared('corpus', 'tplink-tl-mr3020-v1_3.17.2_test.tpl'))('TP-Link: both headers, the U-Boot uImage and the LZMA kernel', async () => {
    const { byName, result } = await unpackCorpus('tplink-tl-mr3020-v1_3.17.2_test.tpl');
    expect(result.stats.formats).toMatchObject({ tplink: 2, uimage: 1 });
    expect(byName('/bootloader')).toHaveLength(1);
    expect(byName('/u-boot image')).toMatchObject([{ format: 'uimage', size: 95584 }]);
    expect(byName('/kernel.lzma')).toMatchObject([{ format: 'tplink', size: 0xd9e1a }]);
  }, 120_000);

  it.runIf(haveShared('corpus', 'bzImage_xz'))('bzImage: the xz payload and the vmlinux inside it', async () => {
    const { byName, result } = await unpackCorpus('bzImage_xz');
    expect(byName('/vmlinux.xz')).toMatchObject([{ format: 'bzimage', size: 409296 }]);
    expect(result.files.find((f) => f.size === 1015400 && f.type === 'elf')).toBeDefined();
    expect(result.problems).toEqual([]);
  }, 120_000);

  it.runIf(haveShared('corpus', 'OVMF_CODE.secboot.fd'))('OVMF_CODE: PE/TE modules named by GUID and UI name', async () => {
    const { result, byName } = await unpackCorpus('OVMF_CODE.secboot.fd');
    const modules = result.files.filter((f) => f.format === 'uefi-fv' && /\.(efi|te)$/.test(f.path));
    // 130 in the PEI and DXE volumes (as 7-Zip lists them) plus SecMain in SECFV.
    expect(modules).toHaveLength(131);
    expect(byName('D6A2CB7F-6A18-4E2F-B43B-9920A733700A_DxeCore/DxeCore.efi')).toMatchObject([{ type: 'pe' }]);
    expect(byName('DF1CCEF6-F301-4A63-9661-FC6030DCC880_SecMain/SecMain.efi')).toHaveLength(1);
    expect(result.problems.filter((p) => p.kind === 'error')).toEqual([]);
  }, 120_000);

  it.runIf(haveShared('corpus', 'OVMF_VARS.secboot.fd'))('OVMF_VARS: PK, KEK, db, dbx and their certificates', async () => {
    const { result } = await unpackCorpus('OVMF_VARS.secboot.fd');
    const names = result.files.filter((f) => f.format === 'uefi-varstore').map((f) => f.path.split('/').pop());
    expect(names).toEqual(expect.arrayContaining(['PK', 'KEK', 'db', 'dbx']));
    const certs = result.files.filter((f) => f.format === 'efi-signature-list' && f.path.endsWith('.der'));
    expect(certs.map((c) => c.path.split('/').slice(-2).join('/'))).toEqual(
      expect.arrayContaining(['PK_extract/cert-0.der', 'KEK_extract/cert-0.der', 'KEK_extract/cert-1.der', 'db_extract/cert-0.der', 'db_extract/cert-1.der']),
    );
  }, 120_000);

  it.runIf(haveShared('corpus', 'ApolloLake-Fsp.fd'))('ApolloLake FSP: three volumes', async () => {
    const { result } = await unpackCorpus('ApolloLake-Fsp.fd');
    expect(result.stats.formats['uefi-fv']).toBe(3);
    expect(result.files.filter((f) => /MemoryInit\.te$/.test(f.path))).toHaveLength(1);
  }, 120_000);

  it.runIf(haveShared('corpus', 'coreboot.rom'))('coreboot: CBFS files with stages decompressed', async () => {
    const { byName } = await unpackCorpus('coreboot.rom');
    expect(byName('/fallback/romstage')).toMatchObject([{ format: 'cbfs', size: 0x3da8 }]);
    expect(byName('/fallback/ramstage')).toMatchObject([{ format: 'cbfs', size: 148660 }]);
    for (const name of ['/config', '/revision', '/fallback/dsdt.aml', '/bootblock', '/compression_test1']) expect(byName(name)).toHaveLength(1);
  }, 120_000);
});

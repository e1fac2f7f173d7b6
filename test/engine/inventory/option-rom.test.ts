// PCI option ROMs: the headers below are the real bytes of Debian bookworm's ipxe-qemu 1.0.0+git-20190125.36a4c85-5.1
// /usr/lib/ipxe/qemu/efi-e1000.rom (a legacy x86 image at 0, then an EFI x64 driver at 0x12600, 0x3d000 bytes in
// all); the code between the headers is left out (zeros), so only the header fields speak.
import { afterAll, describe, expect, it } from 'vitest';
import { readOptionRom } from '../../../src/engine/option-rom-layout.js';
import { fixtureTrees, inventoryOfDirectory } from './support.js';

const { tree, cleanup } = fixtureTrees('optrom-');
afterAll(cleanup);

const LEGACY_HEADER = '55aa93e9a200940000000000000000009c000000000084001c0040005043495286800e10bf041c00030000029300010000000700000000008db400008db40000';
const EFI_HEADER = '55aa5501f10e00000b0064860000000000000000000038001c0000005043495286800e1000001800000000025501000003800000bc000000';

function efiE1000Rom(): Buffer {
  const rom = Buffer.alloc(0x3d000);
  Buffer.from(LEGACY_HEADER, 'hex').copy(rom, 0);
  Buffer.from(EFI_HEADER, 'hex').copy(rom, 0x12600);
  return rom;
}

const parseOptionRom = (rom: Buffer, size: number) => readOptionRom((offset, length) => rom.subarray(offset, offset + length), size);

describe('PCI option ROM headers', () => {
  it('reads the image chain: device ids, class, code types and lengths', async () => {
    const rom = efiE1000Rom();
    expect(await parseOptionRom(rom, rom.length)).toEqual([
      { offset: 0, vendorId: 0x8086, deviceId: 0x100e, classCode: '020000', length: 0x12600, codeType: 'x86-bios' },
      { offset: 0x12600, vendorId: 0x8086, deviceId: 0x100e, classCode: '020000', length: 0x2aa00, codeType: 'efi', machine: 'x64', efi: { imageOffset: 0x38, compressionType: 0 } },
    ]);
  });

  it('is a firmware component naming the device, with the images as evidence', async () => {
    const ctx = await inventoryOfDirectory(tree({ 'usr/lib/ipxe/qemu/efi-e1000.rom': efiE1000Rom() }));
    const rom = ctx.components.find((c) => c.foundBy.includes('option-rom'));
    expect(rom).toMatchObject({ name: 'pci-option-rom-8086-100e', type: 'firmware', supplier: 'Intel', purl: 'pkg:generic/pci-option-rom?class=020000&code=x86-bios%2Cefi-x64&device_id=100e&vendor_id=8086' });
    expect(rom!.version).toBeUndefined();
    expect(rom!.cpe).toBeUndefined();
    expect(rom!.evidence[0].match).toContain('image at 0x12600: PCIR 8086:100e class 020000 efi x64');
  });

  it('reads a PCI data structure that lies past the first 4 KiB (SeaVGABIOS)', async () => {
    // Debian bookworm's seabios 1.16.2-1 /usr/share/seabios/vgabios-stdvga.bin keeps its PCIR at 0x99dc of 39,936 bytes
    const rom = Buffer.alloc(39936);
    rom.writeUInt16LE(0xaa55, 0);
    rom[2] = 0x4e;
    rom.writeUInt16LE(0x99dc, 0x18);
    Buffer.from('504349523412111100001800000000034e00010000800000', 'hex').copy(rom, 0x99dc);
    const ctx = await inventoryOfDirectory(tree({ 'usr/share/seabios/vgabios-stdvga.bin': rom }));
    expect(ctx.components.find((c) => c.foundBy.includes('option-rom'))).toMatchObject({ name: 'pci-option-rom-1234-1111', supplier: 'QEMU' });
  });

  it('rejects a boot sector (0x55AA without a PCI data structure) and a chain running past the file', async () => {
    const mbr = Buffer.alloc(512);
    mbr[0] = 0x55;
    mbr[1] = 0xaa;
    expect(await parseOptionRom(mbr, mbr.length)).toBeUndefined();
    const rom = efiE1000Rom();
    expect(await parseOptionRom(rom.subarray(0, 0x20000), 0x20000)).toBeUndefined();
    const ctx = await inventoryOfDirectory(tree({ 'boot.img': mbr, 'cut.rom': rom.subarray(0, 0x20000) }));
    expect(ctx.components.filter((c) => c.foundBy.includes('option-rom'))).toEqual([]);
  });
});

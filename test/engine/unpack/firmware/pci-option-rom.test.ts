// PCI option ROMs: the EFI drivers of a real combined ROM (Debian's ipxe-qemu, installed by .ci/apt-packages), and
// ROMs built here around a driver stored with UEFI compression (as EDK II's `EfiRom -ec` writes them), with the
// header layout of the PCI Firmware and UEFI specifications.
import { describe, expect, it } from 'vitest';
import { optionRomHandler } from '../../../../src/engine/unpack/firmware/option-rom.js';
import { BufferReader, FileReader } from '../../../../src/engine/unpack/reader.js';
import { needSystemFile } from '../../../support/requirements.js';
import { tianoCompress } from '../boot/tiano-encoder.js';
import { runHandler } from '../extract-harness.js';

const IPXE_ROM = needSystemFile(['/usr/lib/ipxe/qemu/efi-e1000.rom'], 'ipxe-qemu', 'the real option ROM test');

/** One image of a ROM: the 0x55AA header (with an EFI header when `efi` says so) and its PCI data structure at 0x1c. */
function romImage(body: Buffer, options: { last: boolean; efi?: { compressionType: number; machine: number } }): Buffer {
  const headerSize = 0x1c + 0x18;
  const length = Math.ceil((headerSize + body.length) / 512) * 512;
  const image = Buffer.alloc(length);
  image[0] = 0x55;
  image[1] = 0xaa;
  image.writeUInt16LE(length / 512, 2);
  if (options.efi) {
    image.writeUInt32LE(0x0ef1, 4);
    image.writeUInt16LE(0x0b, 8); // boot service driver
    image.writeUInt16LE(options.efi.machine, 0x0a);
    image.writeUInt16LE(options.efi.compressionType, 0x0c);
    image.writeUInt16LE(headerSize, 0x16);
  }
  image.writeUInt16LE(0x1c, 0x18);
  image.write('PCIR', 0x1c, 'latin1');
  image.writeUInt16LE(0x8086, 0x1c + 4);
  image.writeUInt16LE(0x100e, 0x1c + 6);
  image.writeUInt16LE(0x18, 0x1c + 0x0a);
  image[0x1c + 0x0f] = 0x02; // network controller
  image.writeUInt16LE(length / 512, 0x1c + 0x10);
  image[0x1c + 0x14] = options.efi ? 3 : 0;
  image[0x1c + 0x15] = options.last ? 0x80 : 0;
  body.copy(image, headerSize);
  return image;
}

/** Stands for a driver: a PE's DOS header and some code-like bytes (the handler reads no further than 'MZ'). */
const DRIVER = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(62), Buffer.from('e1000 driver '.repeat(400)), Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 31) % 256))]);
const LEGACY = Buffer.concat([Buffer.from([0xcb]), Buffer.from('legacy PXE code '.repeat(40))]);

describe('pci-option-rom', () => {
  it.skipIf(!IPXE_ROM)("writes the EFI driver of a real combined ROM (iPXE's e1000: legacy x86, then EFI x64)", async () => {
    const reader = await FileReader.open(IPXE_ROM!);
    const out = await runHandler(optionRomHandler, reader);
    expect(out.chunk).toMatchObject({ start: 0, end: 0x3d000 });
    expect(out.entries.map((e) => e.path)).toEqual(['image-1-efi-x64.efi']);
    const driver = await out.read('image-1-efi-x64.efi');
    expect(driver.subarray(0, 2).toString('latin1')).toBe('MZ');
    expect(driver.length).toBe(0x3d000 - 0x12600 - 0x38);
    expect(driver.includes('1.0.0+git-20190125.36a4c85')).toBe(true);
    await out.cleanup();
    await reader.close();
  });

  it('decompresses a driver stored with UEFI compression, and with the Tiano variant', async () => {
    for (const variant of ['efi', 'tiano'] as const) {
      const rom = Buffer.concat([romImage(LEGACY, { last: false }), romImage(tianoCompress(DRIVER, variant), { last: true, efi: { compressionType: 1, machine: 0xaa64 } })]);
      const out = await runHandler(optionRomHandler, new BufferReader(Buffer.concat([rom, Buffer.alloc(512, 0xff)])));
      expect(out.chunk.end).toBe(rom.length);
      expect(out.entries.map((e) => e.path)).toEqual(['image-1-efi-aarch64.efi']);
      expect(await out.read('image-1-efi-aarch64.efi')).toEqual(DRIVER);
      expect(out.problems).toEqual([]);
      await out.cleanup();
    }
  });

  it('finds nothing to extract in a legacy-only ROM, a boot sector or a chain that runs past the file', async () => {
    expect(await optionRomHandler.chunk(new BufferReader(romImage(LEGACY, { last: true })), 0)).toBeNull();
    const mbr = Buffer.alloc(512);
    mbr.writeUInt16LE(0xaa55, 0);
    expect(await optionRomHandler.chunk(new BufferReader(mbr), 0)).toBeNull();
    const rom = Buffer.concat([romImage(LEGACY, { last: false }), romImage(DRIVER, { last: true, efi: { compressionType: 0, machine: 0x8664 } })]);
    expect(await optionRomHandler.chunk(new BufferReader(rom.subarray(0, rom.length - 512)), 0)).toBeNull();
  });

  it('reports a corrupt compressed driver and an unknown compression type, and goes on', async () => {
    const corrupt = tianoCompress(DRIVER, 'efi');
    corrupt.fill(0xff, 8, 40);
    const rom = Buffer.concat([
      romImage(corrupt, { last: false, efi: { compressionType: 1, machine: 0x8664 } }),
      romImage(DRIVER, { last: false, efi: { compressionType: 2, machine: 0x8664 } }),
      romImage(DRIVER, { last: true, efi: { compressionType: 0, machine: 0x14c } }),
    ]);
    const out = await runHandler(optionRomHandler, new BufferReader(rom));
    expect(out.entries.map((e) => e.path)).toEqual(['image-2-efi-ia32.efi']);
    expect(out.problems.map((p) => `${p.kind}: ${p.message}`)).toEqual([
      expect.stringMatching(/^error: image-0-efi-x64\.efi: /),
      'warning: image-1-efi-x64.efi: compression type 2 is not UEFI compression: not extracted',
    ]);
    await out.cleanup();
  });
});

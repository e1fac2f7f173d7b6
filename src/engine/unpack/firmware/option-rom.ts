// PCI expansion ROM (option ROM) of a network, storage or video card: its EFI drivers, extracted so that they are
// analysed as the PE images they are (their version resources and strings, their hardening). An EFI image stores
// its driver from EfiImageHeaderOffset to the image's end, as it is or compressed with UEFI compression
// (CompressionType 1; EDK II's EfiRom -ec). Legacy x86 images are not written: they are the ROM's own bytes, which
// the analysis reads where they are. Layout: option-rom-layout.ts.
import { FormatError } from '../../format-error.js';
import { readOptionRom, type RomImage } from '../../option-rom-layout.js';
import { tianoDecompressEither } from '../codecs/tiano.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';

type OptionRomMeta = { images: RomImage[] };

/** An option ROM is at most 16 MiB (a PCI ROM BAR's size); its decompressed drivers at most this much each. */
const MAX_ROM = 16 * 1024 * 1024;
const MAX_DRIVER = 64 * 1024 * 1024;

async function chunk(reader: Reader, start: number): Promise<ChunkInfo<OptionRomMeta> | null> {
  const images = await readOptionRom((offset, length) => reader.read(start + offset, length), Math.min(reader.size - start, MAX_ROM));
  // a ROM without an EFI driver has nothing to extract: it is analysed as it is
  if (!images || !images.some((image) => image.efi)) return null;
  const last = images.at(-1)!;
  return { start, end: start + last.offset + last.length, meta: { images } };
}

async function extract(reader: Reader, info: ChunkInfo<OptionRomMeta>, sink: Sink): Promise<void> {
  for (const [index, image] of info.meta!.images.entries()) {
    if (!image.efi) continue;
    const name = `image-${index}-efi-${image.machine}.efi`;
    const from = info.start + image.offset + image.efi.imageOffset;
    const to = info.start + image.offset + image.length;
    if (image.efi.imageOffset < 0x1a || from >= to) {
      sink.problem('error', `${name}: driver offset ${image.efi.imageOffset} outside its image of ${image.length} bytes`, info.start + image.offset);
      continue;
    }
    if (image.efi.compressionType === 0) {
      await sink.copy(name, reader, from, to);
      continue;
    }
    if (image.efi.compressionType !== 1) {
      sink.problem('warning', `${name}: compression type ${image.efi.compressionType} is not UEFI compression: not extracted`, info.start + image.offset);
      continue;
    }
    try {
      await sink.file(name, await decompressDriver(await reader.readExact(from, to - from)));
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      sink.problem('error', `${name}: ${error.message}`, info.start + image.offset);
    }
  }
}

/**
 * UEFI compression as the specification defines it ('efi'); some builders use EDK II's Tiano variant, which
 * differs in one parameter: each counts only when it gives a PE image.
 */
function decompressDriver(data: Buffer): Promise<Buffer> {
  return tianoDecompressEither(data, MAX_DRIVER, (driver, variant) => {
    if (driver.subarray(0, 2).toString('latin1') !== 'MZ') throw new FormatError(`the ${variant}-decompressed driver is not a PE image`);
    return driver;
  });
}

export const optionRomHandler: Handler<OptionRomMeta> = {
  id: 'pci-option-rom',
  kind: 'firmware',
  doc: {
    title: 'PCI expansion ROM (option ROM): its EFI drivers, decompressed when stored with UEFI compression',
    references: ['PCI Firmware Specification 3.0 §5.1', 'UEFI Specification §14.4.2 (EFI PCI expansion ROM header) and Appendix H (compression)'],
    limitations: ['Only ROMs at the start of a file (its 2-byte signature is too common to carve for)', 'Legacy x86 images are kept as they are (not unpacked, not written again)'],
  },
  magics: [{ bytes: Buffer.from([0x55, 0xaa]) }],
  onlyAtStart: true,
  chunk,
  extract,
};

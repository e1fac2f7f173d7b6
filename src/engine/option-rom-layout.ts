// PCI expansion ROMs (option ROMs): a chain of images, each starting with the 0x55AA ROM signature and pointing
// at its PCI Data Structure ('PCIR': vendor and device id, class code, image length in 512-byte units, code type,
// last-image flag). An EFI image adds its own header after the signature: 0x0EF1, the subsystem and machine type,
// whether the driver is compressed (UEFI compression) and where the driver (a PE image) starts.
// Layout from the PCI Firmware Specification 3.0 §5.1 and UEFI Specification §14.4.2 (EFI PCI expansion ROM header).
// Read by the inventory (one component per ROM) and the unpacker (the EFI drivers inside).

export const CODE_TYPES: Record<number, string> = { 0: 'x86-bios', 1: 'open-firmware', 2: 'hp-pa-risc', 3: 'efi' };
export const EFI_MACHINES: Record<number, string> = { 0x14c: 'ia32', 0x8664: 'x64', 0x200: 'ia64', 0xebc: 'ebc', 0x1c2: 'arm', 0xaa64: 'aarch64', 0x5064: 'riscv64' };

/** The EFI header's signature at +4 of an EFI image. */
const EFI_SIGNATURE = 0x0ef1;
/** At most this many images in a chain. */
const MAX_IMAGES = 16;

export interface RomImage {
  offset: number;
  vendorId: number;
  deviceId: number;
  classCode: string;
  length: number;
  codeType: string;
  /** EFI images: the machine type of the driver. */
  machine?: string;
  /** EFI images: where the driver starts (from the image's start) and how it is stored (0 as it is, 1 UEFI compression). */
  efi?: { imageOffset: number; compressionType: number };
}

/**
 * The images of the ROM whose bytes `read` gives (offset and length from the ROM's start; shorter at its end), or
 * undefined when it is not a well-formed option ROM of at most `size` bytes.
 */
export async function readOptionRom(read: (offset: number, length: number) => Promise<Buffer> | Buffer, size: number): Promise<RomImage[] | undefined> {
  const images: RomImage[] = [];
  let at = 0;
  while (images.length < MAX_IMAGES) {
    const head = await read(at, 0x1a);
    if (head.length < 0x1a || head[0] !== 0x55 || head[1] !== 0xaa) return undefined;
    const pcirAt = at + head.readUInt16LE(0x18);
    const pcir = await read(pcirAt, 0x18);
    if (pcir.length < 0x18 || pcir.toString('latin1', 0, 4) !== 'PCIR') return undefined;
    const structLength = pcir.readUInt16LE(0x0a);
    const length = pcir.readUInt16LE(0x10) * 512;
    if (structLength < 0x18 || length === 0 || at + length > size) return undefined;
    const type = pcir[0x14]!;
    const image: RomImage = {
      offset: at,
      vendorId: pcir.readUInt16LE(4),
      deviceId: pcir.readUInt16LE(6),
      classCode: [pcir[0x0f], pcir[0x0e], pcir[0x0d]].map((b) => b!.toString(16).padStart(2, '0')).join(''),
      length,
      codeType: CODE_TYPES[type] ?? `type-${type}`,
    };
    if (type === 3 && head.readUInt32LE(4) === EFI_SIGNATURE) {
      const m = head.readUInt16LE(0x0a);
      image.machine = EFI_MACHINES[m] ?? `0x${m.toString(16)}`;
      image.efi = { imageOffset: head.readUInt16LE(0x16), compressionType: head.readUInt16LE(0x0c) };
    }
    images.push(image);
    if (pcir[0x15]! & 0x80) return images;
    at += length;
  }
  return undefined;
}

// PCI expansion ROMs (option ROMs): a chain of images, each starting with the 0x55AA ROM signature and pointing
// at its PCI Data Structure ('PCIR': vendor and device id, class code, image length in 512-byte units, code type,
// last-image flag). One component per ROM file names the device it is for and the kinds of code it carries
// (legacy x86 BIOS, EFI driver); the code inside (an iPXE driver, its version) is found by the version signatures.
// Layout from the PCI Firmware Specification 3.0 §5.1 and UEFI Specification §14.4.2 (EFI PCI expansion ROM header).
import type { Candidate, FileView, Identifier } from './identifier.js';
import { buildPurl } from '../purl.js';

const CODE_TYPES: Record<number, string> = { 0: 'x86-bios', 1: 'open-firmware', 2: 'hp-pa-risc', 3: 'efi' };
const EFI_MACHINES: Record<number, string> = { 0x14c: 'ia32', 0x8664: 'x64', 0x200: 'ia64', 0xebc: 'ebc', 0x1c2: 'arm', 0xaa64: 'aarch64', 0x5064: 'riscv64' };
/** PCI-SIG vendor ids of common option-ROM suppliers. */
const VENDORS: Record<number, string> = {
  0x8086: 'Intel', 0x10ec: 'Realtek', 0x14e4: 'Broadcom', 0x1af4: 'Red Hat (virtio)', 0x15ad: 'VMware', 0x1022: 'AMD',
  0x1002: 'AMD (ATI)', 0x10de: 'NVIDIA', 0x1000: 'Broadcom (LSI)', 0x9005: 'Microchip (Adaptec)', 0x15b3: 'Mellanox', 0x1077: 'QLogic',
  0x19a2: 'Emulex', 0x1924: 'Solarflare', 0x1d0f: 'Amazon', 0x1b36: 'Red Hat (QEMU)', 0x1234: 'QEMU', 0x1013: 'Cirrus Logic', 0x1969: 'Qualcomm Atheros',
};

export interface RomImage {
  offset: number;
  vendorId: number;
  deviceId: number;
  classCode: string;
  length: number;
  codeType: string;
  /** EFI images: the machine type of the driver. */
  machine?: string;
}

const hex4 = (n: number): string => n.toString(16).padStart(4, '0');

/** The images of the ROM in `data` (its first bytes), or undefined when it is not a well-formed option ROM. */
export function parseOptionRom(data: Buffer, size: number): RomImage[] | undefined {
  const images: RomImage[] = [];
  let at = 0;
  while (images.length < 16) {
    if (at + 0x1a > data.length || data[at] !== 0x55 || data[at + 1] !== 0xaa) return undefined;
    const pcir = at + data.readUInt16LE(at + 0x18);
    if (pcir + 0x18 > data.length || data.toString('latin1', pcir, pcir + 4) !== 'PCIR') return undefined;
    const structLength = data.readUInt16LE(pcir + 0x0a);
    const length = data.readUInt16LE(pcir + 0x10) * 512;
    if (structLength < 0x18 || length === 0 || at + length > size) return undefined;
    const type = data[pcir + 0x14]!;
    const image: RomImage = {
      offset: at,
      vendorId: data.readUInt16LE(pcir + 4),
      deviceId: data.readUInt16LE(pcir + 6),
      classCode: [data[pcir + 0x0f], data[pcir + 0x0e], data[pcir + 0x0d]].map((b) => b!.toString(16).padStart(2, '0')).join(''),
      length,
      codeType: CODE_TYPES[type] ?? `type-${type}`,
    };
    // EFI images: signature 0x0EF1 at +4, machine type at +0x0a.
    if (type === 3 && data.readUInt32LE(at + 4) === 0x0ef1) {
      const m = data.readUInt16LE(at + 0x0a);
      image.machine = EFI_MACHINES[m] ?? `0x${m.toString(16)}`;
    }
    images.push(image);
    if (data[pcir + 0x15]! & 0x80) return images;
    at += length;
  }
  return undefined;
}

/** How far into the file the image chain is read (ROMs are at most a few MiB; headers sit at image starts). */
const MAX_READ = 16 * 1024 * 1024;

export const optionRomIdentifier: Identifier = {
  id: 'option-rom',
  description: 'PCI expansion ROM headers: device ids and code types (method pci-option-rom)',
  selects: (node, head) => head.length >= 0x1c && head[0] === 0x55 && head[1] === 0xaa && node.size <= MAX_READ && head.toString('latin1', head.readUInt16LE(0x18), head.readUInt16LE(0x18) + 4) === 'PCIR',
  async identify(file: FileView): Promise<Candidate[]> {
    // Chunks overlap; each is copied to its own offset (selects() bounds the size).
    const all = Buffer.alloc(file.node.size);
    for await (const { offset, data } of file.chunks()) data.copy(all, offset);
    const images = parseOptionRom(all, file.node.size);
    if (!images) return [];
    const first = images[0]!;
    const ids = `${hex4(first.vendorId)}:${hex4(first.deviceId)}`;
    const kinds = images.map((i) => (i.machine ? `${i.codeType}-${i.machine}` : i.codeType));
    const candidate: Candidate = {
      key: `option-rom:${ids}`,
      name: `pci-option-rom-${hex4(first.vendorId)}-${hex4(first.deviceId)}`,
      type: 'firmware',
      purl: buildPurl({ type: 'generic', name: 'pci-option-rom', qualifiers: { vendor_id: hex4(first.vendorId), device_id: hex4(first.deviceId), class: first.classCode, code: kinds.join(',') } }),
      confidence: 0.9,
      path: file.node.path,
      primaryFile: true,
      evidence: {
        path: file.node.path,
        method: 'pci-option-rom',
        offset: 0,
        match: images.map((i) => `image at 0x${i.offset.toString(16)}: PCIR ${hex4(i.vendorId)}:${hex4(i.deviceId)} class ${i.classCode} ${i.machine ? `${i.codeType} ${i.machine}` : i.codeType}, ${i.length} bytes`).join('; '),
      },
    };
    const supplier = VENDORS[first.vendorId];
    if (supplier) candidate.supplier = supplier;
    return [candidate];
  },
};

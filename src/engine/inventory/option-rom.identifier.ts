// PCI expansion ROMs (option ROMs): one component per ROM file names the device it is for and the kinds of code it
// carries (legacy x86 BIOS, EFI driver), from the image chain's headers (option-rom-layout.ts); the code inside (an
// iPXE driver, its version) is found by the version signatures, and the unpacker extracts the EFI drivers.
import type { Candidate, FileView, Identifier } from './identifier.js';
import { buildPurl } from '../purl.js';
import { readOptionRom } from '../option-rom-layout.js';

/** PCI-SIG vendor ids of common option-ROM suppliers. */
const VENDORS: Record<number, string> = {
  0x8086: 'Intel', 0x10ec: 'Realtek', 0x14e4: 'Broadcom', 0x1af4: 'Red Hat (virtio)', 0x15ad: 'VMware', 0x1022: 'AMD',
  0x1002: 'AMD (ATI)', 0x10de: 'NVIDIA', 0x1000: 'Broadcom (LSI)', 0x9005: 'Microchip (Adaptec)', 0x15b3: 'Mellanox', 0x1077: 'QLogic',
  0x19a2: 'Emulex', 0x1924: 'Solarflare', 0x1d0f: 'Amazon', 0x1b36: 'Red Hat (QEMU)', 0x1234: 'QEMU', 0x1013: 'Cirrus Logic', 0x1969: 'Qualcomm Atheros',
};

const hex4 = (n: number): string => n.toString(16).padStart(4, '0');

/** Whether the first image's PCIR pointer names 'PCIR' in the head, or a place past it but inside the file. */
function pcirMayBe(head: Buffer, size: number): boolean {
  const at = head.readUInt16LE(0x18);
  return at + 4 <= head.length ? head.toString('latin1', at, at + 4) === 'PCIR' : at + 0x18 <= size;
}

/** How far into the file the image chain is read (ROMs are at most a few MiB; headers sit at image starts). */
const MAX_READ = 16 * 1024 * 1024;

export const optionRomIdentifier: Identifier = {
  id: 'option-rom',
  description: 'PCI expansion ROM headers: device ids and code types (method pci-option-rom)',
  // the PCI data structure may lie past the head (SeaVGABIOS keeps it at 0x99dc): identify() reads it there
  selects: (node, head) => head.length >= 0x1c && head[0] === 0x55 && head[1] === 0xaa && node.size <= MAX_READ && pcirMayBe(head, node.size),
  async identify(file: FileView): Promise<Candidate[]> {
    // Chunks overlap; each is copied to its own offset (selects() bounds the size).
    const all = Buffer.alloc(file.node.size);
    for await (const { offset, data } of file.chunks()) data.copy(all, offset);
    const images = await readOptionRom((offset, length) => all.subarray(offset, offset + length), file.node.size);
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

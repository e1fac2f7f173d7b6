// El Torito bootable CD images: a boot record volume descriptor points at the boot catalog, whose entries
// locate boot images (floppy or hard-disk emulation, or no emulation, e.g. an EFI system partition image).
// Vendors ship BIOS updates this way, so the images are extracted as files. Written from the El Torito
// Bootable CD-ROM Format Specification 1.0 (Phoenix/IBM, 1995).
import type { Reader } from '../../handler.js';

export interface BootImage {
  name: string;
  offset: number;
  size: number;
  platform: string;
  emulation: string;
}

const PLATFORMS: Record<number, string> = { 0: 'x86', 1: 'ppc', 2: 'mac', 0xef: 'efi' };
const EMULATIONS = ['noemul', 'floppy-1.2m', 'floppy-1.44m', 'floppy-2.88m', 'harddisk'];
const FLOPPY_BYTES = [0, 1200 * 1024, 1440 * 1024, 2880 * 1024];
const MAX_ENTRIES = 64;

/** True when `d` (a 2048-byte volume descriptor) is an El Torito boot record; returns the catalog block. */
export function bootCatalogBlock(d: Buffer): number | null {
  if (d[0] !== 0 || d.toString('latin1', 7, 30) !== 'EL TORITO SPECIFICATION') return null;
  return d.readUInt32LE(0x47);
}

/** Size of an image with no declared size: a FAT boot sector or an MBR's last partition end tells it. */
async function sniffSize(reader: Reader, at: number, declared: number): Promise<number> {
  const head = await reader.read(at, 512);
  if (head.length < 512 || head[510] !== 0x55 || head[511] !== 0xaa) return declared;
  const bps = head.readUInt16LE(11);
  const fatTotal = head.readUInt16LE(19) || head.readUInt32LE(32);
  if ([512, 1024, 2048, 4096].includes(bps) && fatTotal > 0 && head[13]! > 0) return Math.max(declared, fatTotal * bps);
  let end = 0;
  for (let p = 0; p < 4; p++) {
    const e = 446 + p * 16;
    end = Math.max(end, (head.readUInt32LE(e + 8) + head.readUInt32LE(e + 12)) * 512);
  }
  return Math.max(declared, end);
}

/** Lists the boot images of the catalog at `block` (2048-byte blocks from `base`), clamped to the image. */
export async function bootImages(reader: Reader, base: number, block: number, limit: number): Promise<BootImage[]> {
  const catalog = await reader.read(base + block * 2048, 2048);
  if (catalog.length < 64 || catalog[0] !== 1 || catalog[30] !== 0x55 || catalog[31] !== 0xaa) return [];
  let sum = 0;
  for (let i = 0; i < 32; i += 2) sum = (sum + catalog.readUInt16LE(i)) & 0xffff;
  if (sum !== 0) return [];
  const images: BootImage[] = [];
  let platform = catalog[1]!;
  const add = async (entry: Buffer) => {
    if (entry[0] !== 0x88 && entry[0] !== 0x00) return;
    const media = entry[1]! & 0x0f;
    const count = entry.readUInt16LE(6);
    const rba = entry.readUInt32LE(8);
    if (rba === 0 || media >= EMULATIONS.length) return;
    const offset = base + rba * 2048;
    if (offset >= limit) return;
    let size = media >= 1 && media <= 3 ? FLOPPY_BYTES[media]! : count * 512;
    if (media === 4 || count <= 4) size = await sniffSize(reader, offset, size);
    size = Math.min(size, limit - offset);
    if (size <= 0) return;
    const platformName = PLATFORMS[platform] ?? `platform-${platform}`;
    images.push({ name: `boot-${images.length + 1}-${platformName}-${EMULATIONS[media]}.img`, offset, size, platform: platformName, emulation: EMULATIONS[media]! });
  };
  await add(catalog.subarray(32, 64));
  // Section headers (0x90 = more follow, 0x91 = last), each followed by its entries.
  let at = 64;
  for (let guard = 0; at + 32 <= catalog.length && guard < MAX_ENTRIES; guard++) {
    const indicator = catalog[at]!;
    if (indicator !== 0x90 && indicator !== 0x91) break;
    platform = catalog[at + 1]!;
    const entries = catalog.readUInt16LE(at + 2);
    at += 32;
    for (let i = 0; i < entries && at + 32 <= catalog.length && images.length < MAX_ENTRIES; i++, at += 32) {
      await add(catalog.subarray(at, at + 32));
    }
    if (indicator === 0x91) break;
  }
  return images;
}

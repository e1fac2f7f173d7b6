// AMD Platform Security Processor firmware in a BIOS flash image: the PSP directories ('$PSP', level 2 '$PL2')
// and the header of the PSP boot loader they point at, which carries its version. Layouts as published by
// coreboot's util/amdfwtool (directory header: cookie, checksum, entry count, additional info; 16-byte entries:
// type, sub-program, flags, size, 64-bit address whose top two bits give the address mode) and PSPTool (the
// 0x100-byte firmware header with '$PS1' at 0x10 and the version at 0x60, four bytes shown high byte first in hex).
import { buildPurl } from '../purl.js';
import type { Candidate, FileView, Identifier } from './identifier.js';

/** BIOS flash images are at most 64 MiB. */
const MAX_READ = 64 * 1024 * 1024;
/** The Embedded Firmware Structure's signature; amdfwtool places it at one of a few fixed offsets. */
const EFS_SIGNATURE = 0x55aa55aa;
const EFS_OFFSETS = [0xfa0000, 0xf20000, 0xe20000, 0xc20000, 0x820000, 0x020000];
const PSP_BOOT_LOADER = 0x01;

export interface PspBootLoader {
  /** Offset of the directory that lists it. */
  directory: number;
  cookie: string;
  /** Offset of the boot loader's header. */
  offset: number;
  version: string;
}

const tag = (data: Buffer, at: number): string => (at >= 0 && at + 4 <= data.length ? data.toString('latin1', at, at + 4) : '');

/** Where an entry's address may point in the file, by address mode (physical, flash offset, directory-relative). */
function targets(address: bigint, directory: number, size: number): number[] {
  const mode = Number(address >> 62n);
  const low = Number(address & 0x3fffffffn);
  if (mode === 2) return [directory + low];
  if (mode === 1) return [low];
  // Physical: the flash is mapped below 4 GiB; older directories also hold plain offsets.
  const mapped = low - (0x100000000 - size);
  return [mapped, low & 0xffffff, low];
}

/** The PSP boot loaders listed by every PSP directory in `data` whose header checks out. */
export function parsePspBootLoaders(data: Buffer): PspBootLoader[] {
  const found: PspBootLoader[] = [];
  for (const cookie of ['$PSP', '$PL2']) {
    for (let at = data.indexOf(cookie, 0, 'latin1'); at >= 0 && found.length < 16; at = data.indexOf(cookie, at + 4, 'latin1')) {
      if (at % 16 !== 0 || at + 16 > data.length) continue;
      const count = data.readUInt32LE(at + 8);
      if (count === 0 || count > 128 || at + 16 + count * 16 > data.length) continue;
      for (let i = 0; i < count; i++) {
        const e = at + 16 + i * 16;
        if (data[e] !== PSP_BOOT_LOADER) continue;
        const size = data.readUInt32LE(e + 4);
        const header = targets(data.readBigUInt64LE(e + 8), at, data.length)
          .find((t) => t >= 0 && t + 0x100 <= data.length && tag(data, t + 0x10) === '$PS1' && size >= 0x100);
        if (header === undefined) continue;
        const version = [...data.subarray(header + 0x60, header + 0x64)].reverse().map((b) => b.toString(16).toUpperCase()).join('.');
        found.push({ directory: at, cookie, offset: header, version });
      }
    }
  }
  return found;
}

/** A flash image with an Embedded Firmware Structure at one of amdfwtool's offsets (counted from a 16 MiB image's end). */
function hasEfs(data: Buffer): boolean {
  return EFS_OFFSETS.some((o) => {
    const at = data.length - 0x1000000 + o;
    return at >= 0 && at + 4 <= data.length && data.readUInt32LE(at) === EFS_SIGNATURE;
  });
}

export const amdPspIdentifier: Identifier = {
  id: 'amd-psp',
  description: 'AMD PSP boot loader version from the $PSP/$PL2 directories and the $PS1 firmware header (method amd-psp-directory)',
  // SPI flash images: a power-of-two size from 1 to 64 MiB, not a program. The directories sit deep inside the
  // image, past the head, so the rest of the check is in identify().
  selects: (node, head) => node.size >= 0x100000 && node.size <= MAX_READ && (node.size & (node.size - 1)) === 0
    && !head.subarray(0, 4).equals(Buffer.from('\x7fELF', 'latin1')) && head.toString('latin1', 0, 2) !== 'MZ',
  perFile: true,
  async identify(file: FileView): Promise<Candidate[]> {
    const all = Buffer.alloc(file.node.size);
    for await (const { offset, data } of file.chunks()) data.copy(all, offset);
    if (!hasEfs(all) && all.indexOf('$PSP', 0, 'latin1') < 0) return [];
    const loaders = parsePspBootLoaders(all);
    if (loaders.length === 0) return [];
    const first = loaders[0]!;
    const others = [...new Set(loaders.slice(1).map((l) => l.version).filter((v) => v !== first.version))];
    return [{
      key: 'amd-psp',
      name: 'amd-psp-bootloader',
      version: first.version,
      type: 'firmware',
      purl: buildPurl({ type: 'generic', namespace: 'amd', name: 'psp-bootloader', version: first.version }),
      supplier: 'AMD',
      confidence: 0.85,
      path: file.node.path,
      primaryFile: true,
      evidence: {
        path: file.node.path,
        method: 'amd-psp-directory',
        offset: first.offset,
        match: loaders.map((l) => `${l.cookie} directory at 0x${l.directory.toString(16)}: boot loader $PS1 header at 0x${l.offset.toString(16)}, version ${l.version}`).join('; ')
          + (others.length ? `; other directories carry ${others.join(', ')}` : ''),
      },
    }];
  },
};

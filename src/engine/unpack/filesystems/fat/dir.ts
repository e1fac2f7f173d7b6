// FAT directory entries: 8.3 short entries, VFAT long-name entries (checksummed against their short entry),
// and DOS timestamps. Written from Microsoft's FAT specification (fatgen103) and Linux fs/fat/dir.c.
import { struct } from '../../struct.js';

export const DirEntry = struct('le', {
  name: 'bytes[11]',
  attr: 'u8',
  ntRes: 'u8',
  crtTimeTenth: 'u8',
  crtTime: 'u16',
  crtDate: 'u16',
  lstAccDate: 'u16',
  fstClusHi: 'u16',
  wrtTime: 'u16',
  wrtDate: 'u16',
  fstClusLo: 'u16',
  fileSize: 'u32',
});

export const ATTR = { READ_ONLY: 0x01, HIDDEN: 0x02, SYSTEM: 0x04, VOLUME_ID: 0x08, DIRECTORY: 0x10, ARCHIVE: 0x20, LFN: 0x0f } as const;

export interface FatEntry {
  name: string;
  attr: number;
  cluster: number;
  size: number;
  mtime: number;
}

/** The checksum of an 11-byte short name that its long-name entries carry. */
export function shortNameChecksum(name: Buffer): number {
  let sum = 0;
  for (let i = 0; i < 11; i++) sum = (((sum & 1) << 7) + (sum >> 1) + name[i]!) & 0xff;
  return sum;
}

function shortName(raw: Buffer, ntRes: number): string {
  const bytes = Buffer.from(raw);
  if (bytes[0] === 0x05) bytes[0] = 0xe5; // 0x05 stands for a real 0xE5 first byte (a KANJI lead byte)
  let base = bytes.subarray(0, 8).toString('latin1').trimEnd();
  let ext = bytes.subarray(8, 11).toString('latin1').trimEnd();
  // Windows NT keeps all-lowercase 8.3 names in these two flag bits instead of a long name.
  if (ntRes & 0x08) base = base.toLowerCase();
  if (ntRes & 0x10) ext = ext.toLowerCase();
  return ext ? `${base}.${ext}` : base;
}

function lfnChars(raw: Buffer): number[] {
  const chars: number[] = [];
  for (const [from, count] of [[1, 5], [14, 6], [28, 2]] as const) {
    for (let i = 0; i < count; i++) chars.push(raw.readUInt16LE(from + i * 2));
  }
  return chars;
}

function dosTime(date: number, time: number): number {
  if (date === 0) return 0;
  const year = 1980 + (date >> 9);
  const month = ((date >> 5) & 0x0f) - 1;
  const day = date & 0x1f;
  return Math.floor(Date.UTC(year, month, day, time >> 11, (time >> 5) & 0x3f, (time & 0x1f) * 2) / 1000);
}

/**
 * Parses the entries of one directory's bytes. Stops at the end marker (a 0x00 first byte); skips deleted
 * entries, volume labels, '.' and '..'. Long names are used only when their checksum matches the short entry.
 */
export function parseDirectory(data: Buffer, fat32: boolean): FatEntry[] {
  const out: FatEntry[] = [];
  let lfn: { checksum: number; next: number; parts: number[][] } | null = null;
  for (let at = 0; at + 32 <= data.length; at += 32) {
    const first = data[at]!;
    if (first === 0x00) break;
    if (first === 0xe5) {
      lfn = null;
      continue;
    }
    const attr = data[at + 11]!;
    if ((attr & 0x3f) === ATTR.LFN) {
      const ord = first & 0x1f;
      const checksum = data[at + 13]!;
      if (first & 0x40) lfn = { checksum, next: ord - 1, parts: [] };
      else if (!lfn || lfn.next !== ord || lfn.checksum !== checksum) {
        lfn = null;
        continue;
      } else lfn.next = ord - 1;
      if (ord === 0) lfn = null;
      else lfn!.parts[ord - 1] = lfnChars(data.subarray(at, at + 32));
      continue;
    }
    const e = DirEntry.parse(data, at);
    let long: string | undefined;
    if (lfn && lfn.next === 0 && lfn.checksum === shortNameChecksum(e.name)) {
      const units: number[] = [];
      for (const part of lfn.parts) {
        for (const u of part) {
          if (u === 0) break;
          units.push(u);
        }
      }
      long = String.fromCharCode(...units);
    }
    lfn = null;
    if (attr & ATTR.VOLUME_ID) continue;
    const name = long ?? shortName(e.name, e.ntRes);
    if (name === '.' || name === '..' || name === '') continue;
    out.push({
      name,
      attr,
      cluster: (fat32 ? e.fstClusHi << 16 : 0) | e.fstClusLo,
      size: e.fileSize,
      mtime: dosTime(e.wrtDate, e.wrtTime),
    });
  }
  return out;
}

// Locating and reading a zip archive's central directory (APPNOTE.TXT 6.3): the end-of-central-directory
// record (with its zip64 locator and record when sizes overflow 32 bits), and the directory entries.
import { FormatError } from '../../../format-error.js';
import type { Reader } from '../../handler.js';

const EOCD = Buffer.from('PK\x05\x06', 'latin1');
const WINDOW = 1024 * 1024;

export interface ZipLayout {
  /** Offset that the archive's stored offsets are relative to (the chunk start, or 0 for prefixed archives). */
  base: number;
  cdStart: number;
  cdSize: number;
  entries: number;
  /** End of the archive: after the EOCD record and its comment. */
  end: number;
}

export interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  /** Unix mode from the external attributes when the archive was made on Unix. */
  unixMode?: number;
  mtime: number;
  /** WinZip AES extra field (0x9901): key strength (1-3) and the compression method under the encryption. */
  aes?: { strength: number; method: number };
}

/** Parses the EOCD at `e` and checks it describes an archive starting at `start`; null when it does not. */
async function layoutAt(reader: Reader, start: number, e: number): Promise<ZipLayout | null> {
  const rec = await reader.read(e, 22);
  if (rec.length < 22) return null;
  let entries = rec.readUInt16LE(10);
  let cdSize = rec.readUInt32LE(12);
  let cdOffset = rec.readUInt32LE(16);
  const end = e + 22 + rec.readUInt16LE(20);
  if (end > reader.size) return null;
  let cdEnd = e;
  if (cdOffset === 0xffffffff || cdSize === 0xffffffff || entries === 0xffff) {
    const locator = await reader.read(e - 20, 20);
    if (locator.length < 20 || locator.readUInt32LE(0) !== 0x07064b50) return null;
    const z = await reader.read(e - 20 - 56, 56);
    if (z.length < 56 || z.readUInt32LE(0) !== 0x06064b50) return null;
    entries = Number(z.readBigUInt64LE(32));
    cdSize = Number(z.readBigUInt64LE(40));
    cdOffset = Number(z.readBigUInt64LE(48));
    cdEnd = e - 20 - 56;
  }
  for (const base of [start, 0]) {
    if (base + cdOffset + cdSize !== cdEnd) continue;
    if (entries > 0) {
      const sig = await reader.read(base + cdOffset, 4);
      if (sig.length < 4 || sig.readUInt32LE(0) !== 0x02014b50) continue;
    }
    if (base + cdOffset < start) continue; // the directory cannot precede the first local header
    return { base, cdStart: base + cdOffset, cdSize, entries, end };
  }
  return null;
}

/**
 * Positions of every EOCD signature of a file, found once per reader: a damaged archive with thousands of local
 * headers and no directory would otherwise make every candidate search the rest of the file.
 */
const eocdIndex = new WeakMap<Reader, { from: number; positions: number[] }>();

async function eocdPositions(reader: Reader, start: number, signal?: AbortSignal): Promise<number[]> {
  const known = eocdIndex.get(reader);
  if (known && known.from <= start) return known.positions;
  const positions: number[] = [];
  for (let at = start; at < reader.size; at += WINDOW) {
    signal?.throwIfAborted();
    const window = await reader.read(at, WINDOW + 3);
    for (let i = window.indexOf(EOCD); i !== -1 && i < WINDOW; i = window.indexOf(EOCD, i + 1)) positions.push(at + i);
  }
  eocdIndex.set(reader, { from: start, positions });
  return positions;
}

/** Finds the first end-of-central-directory record after `start` that is consistent with it. */
export async function findLayout(reader: Reader, start: number, signal?: AbortSignal): Promise<ZipLayout | null> {
  for (const e of await eocdPositions(reader, start, signal)) {
    if (e < start) continue;
    const layout = await layoutAt(reader, start, e);
    if (layout) return layout;
  }
  return null;
}

export async function readDirectory(reader: Reader, layout: ZipLayout): Promise<ZipEntry[]> {
  if (layout.cdSize > 256 * 1024 * 1024) throw new FormatError(`zip: central directory of ${layout.cdSize} bytes`);
  const cd = await reader.readExact(layout.cdStart, layout.cdSize);
  const entries: ZipEntry[] = [];
  let at = 0;
  while (at + 46 <= cd.length && cd.readUInt32LE(at) === 0x02014b50) {
    const nameLen = cd.readUInt16LE(at + 28);
    const extraLen = cd.readUInt16LE(at + 30);
    const commentLen = cd.readUInt16LE(at + 32);
    if (at + 46 + nameLen + extraLen > cd.length) throw new FormatError('zip: truncated central directory entry');
    const entry: ZipEntry = {
      flags: cd.readUInt16LE(at + 8),
      method: cd.readUInt16LE(at + 10),
      mtime: dosTime(cd.readUInt16LE(at + 14), cd.readUInt16LE(at + 12)),
      crc: cd.readUInt32LE(at + 16),
      compressedSize: cd.readUInt32LE(at + 20),
      size: cd.readUInt32LE(at + 24),
      localOffset: cd.readUInt32LE(at + 42),
      name: cd.subarray(at + 46, at + 46 + nameLen).toString(cd.readUInt16LE(at + 8) & 0x800 ? 'utf8' : 'latin1'),
    };
    if (cd[at + 5] === 3) entry.unixMode = cd.readUInt32LE(at + 38) >>> 16;
    applyExtra(entry, cd.subarray(at + 46 + nameLen, at + 46 + nameLen + extraLen));
    entries.push(entry);
    at += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/**
 * Extra fields that change how an entry is read: zip64 extended information (id 0x0001, 64-bit values for the fields
 * that hold 0xFFFFFFFF) and WinZip AES (id 0x9901).
 */
function applyExtra(entry: ZipEntry, extra: Buffer): void {
  let at = 0;
  while (at + 4 <= extra.length) {
    const id = extra.readUInt16LE(at);
    const len = extra.readUInt16LE(at + 2);
    if (id === 0x0001) {
      let p = at + 4;
      const next = () => {
        if (p + 8 > at + 4 + len || p + 8 > extra.length) return undefined;
        const v = Number(extra.readBigUInt64LE(p));
        p += 8;
        return v;
      };
      if (entry.size === 0xffffffff) entry.size = next() ?? entry.size;
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next() ?? entry.compressedSize;
      if (entry.localOffset === 0xffffffff) entry.localOffset = next() ?? entry.localOffset;
    } else if (id === 0x9901 && len >= 7 && at + 11 <= extra.length) {
      entry.aes = { strength: extra[at + 8]!, method: extra.readUInt16LE(at + 9) };
    }
    at += 4 + len;
  }
}

function dosTime(date: number, time: number): number {
  const d = Date.UTC(1980 + (date >> 9), ((date >> 5) & 15) - 1, date & 31, time >> 11, (time >> 5) & 63, (time & 31) * 2);
  return Number.isFinite(d) ? Math.floor(d / 1000) : 0;
}

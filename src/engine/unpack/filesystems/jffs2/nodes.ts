// JFFS2 node formats and the log scan: a JFFS2 image is a sequence of 4-byte-aligned nodes (each with a
// CRC-protected header) laid over erase blocks, with 0xFF (erased) or 0x00 filler between them. Written from
// Linux include/uapi/linux/jffs2.h and fs/jffs2/scan.c.
import zlib from 'node:zlib';
import { struct } from '../../struct.js';
import type { Reader } from '../../handler.js';

export const JFFS2_MAGIC = 0x1985;
export const NODETYPE = {
  DIRENT: 0xe001,
  INODE: 0xe002,
  CLEANMARKER: 0x2003,
  PADDING: 0x2004,
  SUMMARY: 0x2006,
  XATTR: 0xe008,
  XREF: 0xe009,
} as const;
const KNOWN_TYPES = new Set<number>(Object.values(NODETYPE));
/** The marker OpenWrt writes after a JFFS2 image at an erase-block boundary: the rest is not yet formatted. */
export const DEADCODE = 0xdeadc0de;
const MAX_NODE = 1024 * 1024;
const WINDOW = 64 * 1024;
/** How far past a corrupt spot the scan looks for the next node before it decides the image ended. */
const RESYNC_DISTANCE = 64 * 1024;

export function jffs2Crc(data: Buffer): number {
  // The kernel's crc32(0, ...): zero seed, no final inversion.
  return ~zlib.crc32(data, 0xffffffff) >>> 0;
}

const fields = {
  unknown: {},
  header: { magic: 'u16', nodetype: 'u16', totlen: 'u32', hdrCrc: 'u32' },
  dirent: {
    magic: 'u16', nodetype: 'u16', totlen: 'u32', hdrCrc: 'u32',
    pino: 'u32', version: 'u32', ino: 'u32', mctime: 'u32', nsize: 'u8', type: 'u8', unused: 'bytes[2]', nodeCrc: 'u32', nameCrc: 'u32',
  },
  inode: {
    magic: 'u16', nodetype: 'u16', totlen: 'u32', hdrCrc: 'u32',
    ino: 'u32', version: 'u32', mode: 'u32', uid: 'u16', gid: 'u16', isize: 'u32', atime: 'u32', mtime: 'u32', ctime: 'u32',
    offset: 'u32', csize: 'u32', dsize: 'u32', compr: 'u8', usercompr: 'u8', flags: 'u16', dataCrc: 'u32', nodeCrc: 'u32',
  },
  /** An extended attribute's name and value ("datum"), shared by every inode an xref binds it to. */
  xattr: {
    magic: 'u16', nodetype: 'u16', totlen: 'u32', hdrCrc: 'u32',
    xid: 'u32', version: 'u32', xprefix: 'u8', nameLen: 'u8', valueLen: 'u16', dataCrc: 'u32', nodeCrc: 'u32',
  },
  xref: { magic: 'u16', nodetype: 'u16', totlen: 'u32', hdrCrc: 'u32', ino: 'u32', xid: 'u32', xseqno: 'u32', nodeCrc: 'u32' },
} as const;

const layouts = (e: 'le' | 'be') => ({
  header: struct(e, fields.header),
  dirent: struct(e, fields.dirent),
  inode: struct(e, fields.inode),
  xattr: struct(e, fields.xattr),
  xref: struct(e, fields.xref),
});

export const Layouts = { le: layouts('le'), be: layouts('be') };
export type Endian = keyof typeof Layouts;
export type DirentNode = ReturnType<typeof Layouts.le.dirent.parse>;
export type InodeNode = ReturnType<typeof Layouts.le.inode.parse>;
export type XattrNode = ReturnType<typeof Layouts.le.xattr.parse>;
export type XrefNode = ReturnType<typeof Layouts.le.xref.parse>;

/** The endianness whose magic and header CRC match at `buf[at]`, or null. */
export function headerAt(buf: Buffer, at: number, endian?: Endian): { endian: Endian; nodetype: number; totlen: number } | null {
  if (at + 12 > buf.length) return null;
  for (const e of endian ? [endian] : (['le', 'be'] as const)) {
    if ((e === 'le' ? buf.readUInt16LE(at) : buf.readUInt16BE(at)) !== JFFS2_MAGIC) continue;
    const h = Layouts[e].header.parse(buf, at);
    if (h.magic !== JFFS2_MAGIC) continue;
    if (jffs2Crc(buf.subarray(at, at + 8)) !== h.hdrCrc) continue;
    // Unknown types are allowed by the format (feature bits in the type), but a sane length is required.
    if (h.totlen < 12 || h.totlen > MAX_NODE) continue;
    if (!KNOWN_TYPES.has(h.nodetype) && (h.nodetype & 0xc000) === 0) continue;
    return { endian: e, nodetype: h.nodetype, totlen: h.totlen };
  }
  return null;
}

export interface ScannedNode {
  offset: number;
  nodetype: number;
  totlen: number;
}

export interface ScanResult {
  endian: Endian;
  nodes: ScannedNode[];
  /** End of the last node plus the filler that belongs to it. */
  end: number;
  /** Byte ranges that were neither nodes nor filler but lay between valid nodes. */
  corrupt: number;
  deadcode: boolean;
}

/**
 * Walks the log from `start`: nodes, filler, and short corrupt stretches followed by more nodes. Stops at the
 * OpenWrt end marker, at data that is not JFFS2 for longer than an erase block, or at `limit`.
 */
export async function scanNodes(reader: Reader, start: number, limit: number, signal?: AbortSignal): Promise<ScanResult | null> {
  let window: Buffer = Buffer.alloc(0);
  let windowAt = start;
  const view = async (at: number, length: number): Promise<Buffer> => {
    if (at < windowAt || at + length > windowAt + window.length) {
      windowAt = at;
      window = await reader.read(at, Math.max(length, WINDOW));
    }
    return window.subarray(at - windowAt, at - windowAt + length);
  };
  const first = headerAt(await view(start, 12), 0);
  if (!first) return null;
  const endian = first.endian;
  const nodes: ScannedNode[] = [];
  let pos = start;
  let lastEnd = start;
  let corruptSince = -1;
  let corrupt = 0;
  let deadcode = false;
  let eraseGuess = 0;
  let lastCleanmarker = -1;
  while (pos + 4 <= limit) {
    if (signal?.aborted) throw signal.reason;
    const head = await view(pos, Math.min(12, limit - pos));
    const word = head.length >= 4 ? head.readUInt32BE(0) : 0;
    if (corruptSince < 0 && (word === 0xffffffff || word === 0)) {
      // Skip a run of filler a window at a time.
      const part = await view(pos, Math.min(WINDOW, limit - pos) & ~3);
      let i = 4;
      while (i + 4 <= part.length && (part.readUInt32BE(i) === 0xffffffff || part.readUInt32BE(i) === 0)) i += 4;
      pos += i;
      continue;
    }
    const h = headerAt(head, 0, endian);
    if (h && pos + h.totlen <= limit) {
      if (corruptSince >= 0) {
        corrupt += pos - corruptSince;
        corruptSince = -1;
      }
      nodes.push({ offset: pos, nodetype: h.nodetype, totlen: h.totlen });
      if (h.nodetype === NODETYPE.CLEANMARKER) {
        if (lastCleanmarker >= 0 && (eraseGuess === 0 || pos - lastCleanmarker < eraseGuess)) eraseGuess = pos - lastCleanmarker;
        lastCleanmarker = pos;
      }
      pos += (h.totlen + 3) & ~3;
      lastEnd = pos;
      continue;
    }
    if (word === DEADCODE && corruptSince < 0) {
      deadcode = true;
      lastEnd = pos + 4;
      break;
    }
    if (corruptSince < 0) corruptSince = pos;
    if (corruptSince >= 0 && pos - corruptSince > RESYNC_DISTANCE) break;
    pos += 4;
  }
  // Trailing filler belongs to the image up to the end of the erase block holding the last node.
  let end = lastEnd;
  if (!deadcode) {
    const erase = eraseGuess || 64 * 1024;
    const blockEnd = start + Math.ceil((lastEnd - start) / erase) * erase;
    let fill = lastEnd;
    while (fill < Math.min(blockEnd, limit)) {
      const part = await view(fill, Math.min(WINDOW, Math.min(blockEnd, limit) - fill));
      const bad = part.findIndex((b) => b !== 0xff && b !== 0);
      if (bad >= 0) {
        fill += bad & ~3;
        break;
      }
      fill += part.length;
    }
    end = fill;
  }
  return { endian, nodes, end, corrupt, deadcode };
}

// JFFS2: a log of directory-entry and inode (data) nodes. The newest version of each directory entry names the
// tree; each file is rebuilt by laying its data nodes over each other in version order (holes read as zeros)
// and cutting at the newest node's size; extended attributes are attached from xattr and xref nodes
// (xattrs.ts). Written from Linux fs/jffs2 (readinode.c, scan.c, xattr.c, compr_*.c).
import { inflate, lzmaRaw } from '../../codecs/blocks.js';
import { lzo1xDecompress } from '../../codecs/lzo.js';
import { rtimeDecompress } from '../../codecs/rtime.js';
import { rubinDecompress } from './rubin.js';
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { jffs2Crc, Layouts, NODETYPE, scanNodes, type DirentNode, type Endian, type InodeNode } from './nodes.js';
import { decodeDev, sinkSpecialInode, type DeviceNumber } from '../dev-t.js';
import { Jffs2Xattrs } from './xattrs.js';
import { xattrMeta } from '../xattrs.js';

const ROOT_INO = 1;
const S_IFMT = 0o170000;
const COMPR = { NONE: 0, ZERO: 1, RTIME: 2, RUBINMIPS: 3, COPY: 4, DYNRUBIN: 5, ZLIB: 6, LZO: 7, LZMA: 8 } as const;
const COMPR_NAMES = ['none', 'zero', 'rtime', 'rubinmips', 'copy', 'dynrubin', 'zlib', 'lzo', 'lzma'];
/** A data node holds at most a page (4 KiB; 64 KiB on large-page systems); more is a lie. */
const MAX_NODE_DATA = 1024 * 1024;

interface DataRef {
  at: number;
  node: InodeNode;
}
/** A piece of a file: bytes [start, end) come from `ref` starting at `skip` bytes into its decoded data. */
interface Fragment {
  start: number;
  end: number;
  ref: DataRef | null;
  skip: number;
}

async function decode(reader: Reader, ref: DataRef, endian: Endian): Promise<Buffer> {
  const n = ref.node;
  const dataAt = ref.at + Layouts[endian].inode.size;
  if (n.compr === COMPR.ZERO) return Buffer.alloc(n.dsize);
  const raw = await reader.readExact(dataAt, n.csize);
  if (jffs2Crc(raw) !== n.dataCrc) throw new FormatError(`data CRC mismatch in node at ${ref.at}`);
  switch (n.compr) {
    case COMPR.NONE:
    case COMPR.COPY:
      return raw.subarray(0, n.dsize);
    case COMPR.ZLIB:
      return inflate(raw, n.dsize);
    case COMPR.RTIME:
      return rtimeDecompress(raw, n.dsize);
    case COMPR.LZO:
      return lzo1xDecompress(raw, n.dsize);
    case COMPR.LZMA:
      // OpenWrt's JFFS2 LZMA: raw LZMA1 with lc=lp=pb=0 and no header.
      return lzmaRaw({ lc: 0, lp: 0, pb: 0, dictSize: 0x2000 }, raw, n.dsize);
    case COMPR.RUBINMIPS:
    case COMPR.DYNRUBIN:
      // Rubin always decodes exactly dsize bytes, whatever its input: a lying size is refused, not allocated.
      if (n.dsize > MAX_NODE_DATA) throw new FormatError(`node at ${ref.at} claims ${n.dsize} bytes of rubin data`);
      return rubinDecompress(raw, n.dsize);
    default:
      throw new FormatError(`unsupported compression ${COMPR_NAMES[n.compr] ?? n.compr} in node at ${ref.at}`);
  }
}

/** Lays `ref` over the sorted fragment list in place (newer data replaces the overlapped ranges). */
function overlay(frags: Fragment[], ref: DataRef): void {
  const start = ref.node.offset;
  const end = start + ref.node.dsize;
  if (end <= start) return;
  // First fragment that ends after `start` (binary search: nodes mostly arrive in file order).
  let lo = 0;
  let hi = frags.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (frags[mid]!.end <= start) lo = mid + 1;
    else hi = mid;
  }
  const replaced: Fragment[] = [];
  let last = lo;
  while (last < frags.length && frags[last]!.start < end) last++;
  const before = frags[lo];
  if (before && before.start < start && lo < last) replaced.push({ ...before, end: start });
  replaced.push({ start, end, ref, skip: 0 });
  const after = frags[last - 1];
  if (after && last > lo && after.end > end) replaced.push({ ...after, start: end, skip: after.skip + (end - after.start) });
  frags.splice(lo, last - lo, ...replaced);
}

interface InodeState {
  latest: DataRef;
  data: DataRef[];
}

class Jffs2Image {
  readonly inodes = new Map<number, InodeState>();
  /** parent ino → name → newest dirent */
  readonly dirents = new Map<number, Map<string, { version: number; ino: number }>>();
  badNodes = 0;
  readonly xattrs: Jffs2Xattrs;

  constructor(
    readonly reader: Reader,
    readonly endian: Endian,
  ) {
    this.xattrs = new Jffs2Xattrs(endian);
  }

  async load(nodes: Array<{ offset: number; nodetype: number; totlen: number }>, sink: Sink): Promise<void> {
    const L = Layouts[this.endian];
    for (const { offset, nodetype, totlen } of nodes) {
      if (nodetype === NODETYPE.INODE) {
        const raw = await this.reader.readExact(offset, Math.min(totlen, L.inode.size));
        if (raw.length < L.inode.size) continue;
        const node = L.inode.parse(raw);
        if (jffs2Crc(raw.subarray(0, L.inode.size - 8)) !== node.nodeCrc || L.inode.size + node.csize > totlen) {
          this.badNodes++;
          continue;
        }
        const ref = { at: offset, node };
        let state = this.inodes.get(node.ino);
        if (!state) this.inodes.set(node.ino, (state = { latest: ref, data: [] }));
        if (node.version >= state.latest.node.version) state.latest = ref;
        if (node.dsize > 0) state.data.push(ref);
      } else if (nodetype === NODETYPE.XATTR || nodetype === NODETYPE.XREF) {
        const raw = await this.reader.readExact(offset, totlen);
        if (!(nodetype === NODETYPE.XATTR ? this.xattrs.addDatum(raw) : this.xattrs.addRef(raw))) this.badNodes++;
      } else if (nodetype === NODETYPE.DIRENT) {
        const raw = await this.reader.readExact(offset, totlen);
        const node: DirentNode = L.dirent.parse(raw);
        const nameEnd = L.dirent.size + node.nsize;
        if (jffs2Crc(raw.subarray(0, L.dirent.size - 8)) !== node.nodeCrc || nameEnd > totlen) {
          this.badNodes++;
          continue;
        }
        const nameBytes = raw.subarray(L.dirent.size, nameEnd);
        if (jffs2Crc(nameBytes) !== node.nameCrc) {
          this.badNodes++;
          continue;
        }
        const name = nameBytes.toString('utf8');
        let dir = this.dirents.get(node.pino);
        if (!dir) this.dirents.set(node.pino, (dir = new Map()));
        const known = dir.get(name);
        // ino 0 is an unlink: it hides older entries of the same name.
        if (!known || node.version > known.version) dir.set(name, { version: node.version, ino: node.ino });
      }
    }
    if (this.badNodes) sink.problem('error', `JFFS2: ${this.badNodes} nodes with a bad CRC ignored`);
  }

  fragments(state: InodeState): Fragment[] {
    const frags: Fragment[] = [];
    for (const ref of [...state.data].sort((a, b) => a.node.version - b.node.version)) overlay(frags, ref);
    const size = state.latest.node.isize;
    return frags.filter((f) => f.start < size).map((f) => (f.end > size ? { ...f, end: size } : f));
  }

  async *content(state: InodeState, path: string, sink: Sink): AsyncGenerator<Buffer> {
    const size = state.latest.node.isize;
    let pos = 0;
    let cached: { ref: DataRef; data: Buffer } | undefined;
    for (const f of this.fragments(state)) {
      if (f.start > pos) yield Buffer.alloc(f.start - pos);
      let data: Buffer;
      try {
        if (cached?.ref !== f.ref) cached = { ref: f.ref!, data: await decode(this.reader, f.ref!, this.endian) };
        data = cached.data.subarray(f.skip, f.skip + (f.end - f.start));
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        sink.problem('error', `JFFS2: ${path}: ${error.message}; zero-filled`);
        data = Buffer.alloc(0);
      }
      yield data.length === f.end - f.start ? data : Buffer.concat([data, Buffer.alloc(f.end - f.start - data.length)]);
      pos = f.end;
    }
    if (pos < size) {
      // A file ending in a hole: bounded by the image, since no node backs it.
      const tail = Math.min(size - pos, this.reader.size);
      if (tail < size - pos) sink.problem('error', `JFFS2: ${path}: size ${size} far beyond its data; cut`);
      yield Buffer.alloc(tail);
    }
  }

  async whole(state: InodeState, path: string, sink: Sink): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const part of this.content(state, path, sink)) parts.push(part);
    return Buffer.concat(parts);
  }
}

async function extract(reader: Reader, chunk: ChunkInfo, sink: Sink): Promise<void> {
  const scan = await scanNodes(reader, chunk.start, chunk.end, sink.signal);
  if (!scan) throw new FormatError('JFFS2 chunk no longer starts with a node');
  if (scan.corrupt) sink.problem('error', `JFFS2: ${scan.corrupt} bytes of corrupt data between nodes skipped`, chunk.start);
  const image = new Jffs2Image(reader, scan.endian);
  await image.load(scan.nodes, sink);
  const firstPath = new Map<number, string>();
  const visited = new Set<number>([ROOT_INO]);
  const stack: Array<{ ino: number; path: string }> = [{ ino: ROOT_INO, path: '' }];
  while (stack.length) {
    if (sink.signal.aborted) throw sink.signal.reason;
    const { ino: dirIno, path: dirPath } = stack.pop()!;
    for (const [name, { ino }] of image.dirents.get(dirIno) ?? []) {
      if (ino === 0) continue;
      const path = dirPath ? `${dirPath}/${name}` : name;
      if (name.includes('/') || name === '.' || name === '..' || name === '') {
        sink.problem('error', `JFFS2: bad entry name ${JSON.stringify(name)} in ${dirPath || '/'}`);
        continue;
      }
      const state = image.inodes.get(ino);
      if (!state) {
        sink.problem('error', `JFFS2: ${path}: inode ${ino} has no inode node`);
        continue;
      }
      const n = state.latest.node;
      const xattrs = xattrMeta(image.xattrs.of(ino));
      const meta = { mode: n.mode & 0o7777, uid: n.uid, gid: n.gid, mtime: n.mtime, ...(xattrs && { meta: xattrs }) };
      try {
        switch (n.mode & S_IFMT) {
          case 0o040000:
            if (visited.has(ino)) {
              sink.problem('error', `JFFS2: directory loop at ${path}`);
              continue;
            }
            visited.add(ino);
            await sink.dir(path, meta);
            stack.push({ ino, path });
            break;
          case 0o100000: {
            const seen = firstPath.get(ino);
            if (seen !== undefined) sink.hardlink(path, seen, meta);
            else {
              firstPath.set(ino, path);
              await sink.file(path, image.content(state, path, sink), meta);
            }
            break;
          }
          case 0o120000:
            sink.symlink(path, (await image.whole(state, path, sink)).toString('utf8'), meta);
            break;
          default: {
            // A device's dev_t is the node's data; its i_size is 0, so it is read from the newest data node directly.
            const device = async () => {
              const newest = [...state.data].sort((a, b) => b.node.version - a.node.version)[0];
              return deviceNumber(newest ? await decode(reader, newest, scan.endian) : Buffer.alloc(0), scan.endian);
            };
            if (!(await sinkSpecialInode(sink, path, n.mode, meta, device))) sink.problem('error', `JFFS2: ${path}: unknown file type ${n.mode.toString(8)}`);
          }
        }
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        sink.problem('error', `JFFS2: ${path}: ${error.message}`);
      }
    }
  }
}

/** The kernel stores a 16-bit old-style or 32-bit new-style dev_t as the device inode's data. */
function deviceNumber(raw: Buffer, endian: Endian): DeviceNumber {
  if (raw.length === 2) {
    const dev = endian === 'le' ? raw.readUInt16LE(0) : raw.readUInt16BE(0);
    return { major: dev >> 8, minor: dev & 0xff };
  }
  const dev = raw.length >= 4 ? (endian === 'le' ? raw.readUInt32LE(0) : raw.readUInt32BE(0)) : 0;
  return decodeDev(dev);
}

const magic = (bytes: number[]) => ({ bytes: Buffer.from(bytes) });

export const jffs2Handler: Handler = {
  id: 'jffs2',
  kind: 'filesystem',
  doc: {
    title: 'JFFS2 (Journalling Flash File System 2), little- and big-endian',
    references: ['Linux include/uapi/linux/jffs2.h', 'Linux fs/jffs2 (scan.c, readinode.c, compr_rtime.c, compr_rubin.c)', 'jefferson'],
    limitations: [
      'Rubin nodes (types 3 and 5, numbered differently before and after Linux 2.6) are read as dynrubin when they start with a dynrubin probability table, else as rubinmips',
      'Summary nodes are skipped (the nodes they summarise are read); extended attributes (xattr and xref nodes) go to meta.xattrs, except on device nodes',
    ],
  },
  // The first node of an image: a cleanmarker, an inode or a directory entry, in either byte order.
  magics: [
    magic([0x85, 0x19, 0x03, 0x20]),
    magic([0x85, 0x19, 0x01, 0xe0]),
    magic([0x85, 0x19, 0x02, 0xe0]),
    magic([0x19, 0x85, 0x20, 0x03]),
    magic([0x19, 0x85, 0xe0, 0x01]),
    magic([0x19, 0x85, 0xe0, 0x02]),
  ],
  async chunk(reader, start) {
    const scan = await scanNodes(reader, start, reader.size);
    if (!scan) return null;
    const hasContent = scan.nodes.some((n) => n.nodetype === NODETYPE.DIRENT || n.nodetype === NODETYPE.INODE);
    if (!hasContent) return null;
    return {
      start,
      end: scan.end,
      meta: { endian: scan.endian, nodes: scan.nodes.length, endMarker: scan.deadcode, corruptBytes: scan.corrupt },
    };
  },
  extract,
};

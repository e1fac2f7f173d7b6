// CramFS (both endiannesses): a 76-byte superblock (64-byte header + root inode), 12-byte inodes with bitfield
// sizes and offsets, and files stored as per-page zlib blocks behind a table of block end pointers. Written from
// Linux include/uapi/linux/cramfs_fs.h and fs/cramfs/inode.c (block pointer, hole and extended pointer rules).
import type { ChunkInfo, EntryMeta, Handler, Reader, Sink } from '../handler.js';
import { FormatError } from '../../format-error.js';
import { xz } from '../codecs/blocks.js';
import { LzmaFamilyDecoder } from './squashfs/compressors.js';
import { struct } from '../struct.js';

const headerFields = {
  magic: 'u32', size: 'u32', flags: 'u32', future: 'u32', signature: 'char[16]',
  crc: 'u32', edition: 'u32', blocks: 'u32', files: 'u32', name: 'char[16]',
} as const;
const HEADER = { le: struct('le', headerFields), be: struct('be', headerFields) };
const inodeFields = { mode: 'u16', uid: 'u16', sizeGid: 'u32', nameOffset: 'u32' } as const;
const INODE = { le: struct('le', inodeFields), be: struct('be', inodeFields) };

const MAGIC = 0x28cd3d45;
const SIGNATURE = 'Compressed ROMFS';
const SUPER_SIZE = 76;
const FLAG_EXT_BLOCK_POINTERS = 0x800;
const SUPPORTED_FLAGS = 0xfff;
const BLK_UNCOMPRESSED = 0x80000000;
const BLK_DIRECT = 0x40000000;
const S_IFMT = 0o170000;
const MAX_DEPTH = 512;

interface CramInode {
  mode: number;
  uid: number;
  gid: number;
  size: number;
  nameLength: number;
  /** Byte offset of the data (or of the first child inode for a directory). */
  offset: number;
}

function parseInode(buf: Buffer, at: number, endian: 'le' | 'be'): CramInode {
  const raw = INODE[endian].parse(buf, at);
  // C bitfields: on little-endian the first field takes the low bits, on big-endian the high bits.
  if (endian === 'le') {
    return { mode: raw.mode, uid: raw.uid, size: raw.sizeGid & 0xffffff, gid: raw.sizeGid >>> 24, nameLength: (raw.nameOffset & 0x3f) * 4, offset: (raw.nameOffset >>> 6) * 4 };
  }
  return { mode: raw.mode, uid: raw.uid, size: raw.sizeGid >>> 8, gid: raw.sizeGid & 0xff, nameLength: (raw.nameOffset >>> 26) * 4, offset: (raw.nameOffset & 0x3ffffff) * 4 };
}

function parseSuper(buf: Buffer): { endian: 'le' | 'be'; header: ReturnType<(typeof HEADER)['le']['parse']>; root: CramInode } | null {
  if (buf.length < SUPER_SIZE) return null;
  const endian = buf.readUInt32LE(0) === MAGIC ? 'le' : buf.readUInt32BE(0) === MAGIC ? 'be' : null;
  if (!endian) return null;
  const header = HEADER[endian].parse(buf);
  if (header.signature !== SIGNATURE || (header.flags & ~SUPPORTED_FLAGS) !== 0) return null;
  if (header.size < SUPER_SIZE) return null;
  const root = parseInode(buf, 64, endian);
  if ((root.mode & S_IFMT) !== 0o040000) return null;
  if (root.size > 0 && (root.offset < SUPER_SIZE || root.offset + root.size > header.size)) return null;
  return { endian, header, root };
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
  const sb = parseSuper(await reader.read(start, SUPER_SIZE));
  if (!sb) return null;
  if (start + sb.header.size > reader.size) {
    throw new FormatError(`truncated: CramFS says ${sb.header.size} bytes, only ${reader.size - start} available`);
  }
  return {
    start,
    end: start + sb.header.size,
    meta: { endian: sb.endian, name: sb.header.name, files: sb.header.files, edition: sb.header.edition, flags: sb.header.flags },
  };
}

const XZ_MAGIC = Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]);

class CramImage {
  blockSize = 4096;
  private blockSizeKnown = false;
  /** zlib as Linux writes it; vendor kernels (lzma-uncramfs) use LZMA blocks, some xz: told apart per block. */
  private readonly family = new LzmaFamilyDecoder(true);

  constructor(
    private readonly reader: Reader,
    private readonly base: number,
    private readonly size: number,
    private readonly endian: 'le' | 'be',
    private readonly flags: number,
  ) {}

  async read(offset: number, length: number): Promise<Buffer> {
    if (offset < 0 || offset + length > this.size) throw new FormatError(`read of ${length} bytes at ${offset} is outside the image`);
    return this.reader.readExact(this.base + offset, length);
  }

  async children(dir: CramInode): Promise<Array<{ name: string; inode: CramInode }>> {
    const data = await this.read(dir.offset, dir.size);
    const out: Array<{ name: string; inode: CramInode }> = [];
    let at = 0;
    while (at < data.length) {
      if (at + 12 > data.length) throw new FormatError(`directory at ${dir.offset}: truncated inode`);
      const inode = parseInode(data, at, this.endian);
      const rawName = data.subarray(at + 12, at + 12 + inode.nameLength);
      if (inode.nameLength === 0 || rawName.length < inode.nameLength) throw new FormatError(`directory at ${dir.offset}: bad name length`);
      const nul = rawName.indexOf(0);
      out.push({ name: rawName.subarray(0, nul === -1 ? rawName.length : nul).toString('utf8'), inode });
      at += 12 + inode.nameLength;
    }
    return out;
  }

  private decode(raw: Buffer, maxOutput: number): Promise<Buffer> {
    return raw.subarray(0, 6).equals(XZ_MAGIC) ? xz(raw, maxOutput) : this.family.decode(raw, maxOutput);
  }

  private word(buf: Buffer, at: number): number {
    return this.endian === 'le' ? buf.readUInt32LE(at) : buf.readUInt32BE(at);
  }

  /** The file's bytes, block by block; holes come out as zeros. */
  async *data(inode: CramInode): AsyncIterable<Buffer> {
    if (inode.size === 0) return;
    if (!this.blockSizeKnown) await this.detectBlockSize(inode);
    const count = Math.ceil(inode.size / this.blockSize);
    const table = await this.read(inode.offset, count * 4);
    const ext = (this.flags & FLAG_EXT_BLOCK_POINTERS) !== 0;
    let next = inode.offset + count * 4;
    for (let i = 0; i < count; i++) {
      const expected = Math.min(this.blockSize, inode.size - i * this.blockSize);
      let ptr = this.word(table, i * 4);
      let uncompressed = false;
      let start = next;
      let length: number;
      if (ext && (ptr & BLK_DIRECT) !== 0) {
        uncompressed = (ptr & BLK_UNCOMPRESSED) !== 0;
        start = (ptr & 0x3fffffff) * 4;
        if (uncompressed) length = expected;
        else {
          const prefix = await this.read(start, 2);
          length = this.endian === 'le' ? prefix.readUInt16LE(0) : prefix.readUInt16BE(0);
          start += 2;
        }
        next = start + length;
      } else {
        if (ext) {
          uncompressed = (ptr & BLK_UNCOMPRESSED) !== 0;
          ptr &= 0x3fffffff;
        }
        length = ptr - start;
        if (length < 0) throw new FormatError(`block ${i} of inode at ${inode.offset}: pointer ${ptr} before its start ${start}`);
        next = ptr;
      }
      if (length === 0) {
        yield Buffer.alloc(expected);
        continue;
      }
      const raw = await this.read(start, length);
      const block = uncompressed ? raw : await this.decode(raw, this.blockSize);
      if (block.length !== expected) {
        throw new FormatError(`block ${i} of inode at ${inode.offset} decoded to ${block.length} bytes, expected ${expected}`);
      }
      yield block;
    }
  }

  /** mkfs.cramfs -b can use a page size other than 4 KiB: learn it from the first block of a multi-block file. */
  private async detectBlockSize(inode: CramInode): Promise<void> {
    if (inode.size <= 4096 || (this.flags & FLAG_EXT_BLOCK_POINTERS) !== 0) return;
    this.blockSizeKnown = true;
    for (const size of [4096, 8192, 16384, 32768, 65536]) {
      const count = Math.ceil(inode.size / size);
      const first = this.word(await this.read(inode.offset, 4), 0);
      const start = inode.offset + count * 4;
      if (first <= start || first > this.size) continue;
      try {
        const out = await this.decode(await this.read(start, first - start), 65536);
        if (out.length === Math.min(size, inode.size)) {
          this.blockSize = size;
          return;
        }
      } catch {
        // not this block size
      }
    }
  }
}

async function extract(reader: Reader, info: ChunkInfo, sink: Sink): Promise<void> {
  const sb = parseSuper(await reader.readExact(info.start, SUPER_SIZE));
  if (!sb) throw new FormatError('not a CramFS superblock');
  const img = new CramImage(reader, info.start, info.end - info.start, sb.endian, sb.header.flags);
  const visited = new Set<number>();
  const stack: Array<{ dir: CramInode; path: string; depth: number }> = [{ dir: sb.root, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { dir, path, depth } = stack.pop()!;
    sink.signal.throwIfAborted();
    let children: Array<{ name: string; inode: CramInode }>;
    try {
      children = await img.children(dir);
    } catch (error) {
      if (!(error instanceof FormatError) || path === '') throw error;
      sink.problem('error', `${path}: ${error.message}`);
      continue;
    }
    for (const { name, inode } of children) {
      if (name === '' || name === '.' || name === '..' || name.includes('/')) {
        sink.problem('error', `${path || '/'}: refused entry name ${JSON.stringify(name)}`);
        continue;
      }
      const child = path ? `${path}/${name}` : name;
      const meta: EntryMeta = { mode: inode.mode & 0o7777, uid: inode.uid, gid: inode.gid };
      try {
        switch (inode.mode & S_IFMT) {
          case 0o040000:
            if (inode.size > 0 && (visited.has(inode.offset) || inode.offset === sb.root.offset || depth >= MAX_DEPTH)) {
              sink.problem('error', `${child}: directory loop or nesting too deep (children at ${inode.offset})`);
              continue;
            }
            visited.add(inode.offset);
            await sink.dir(child, meta);
            if (inode.size > 0) stack.push({ dir: inode, path: child, depth: depth + 1 });
            break;
          case 0o100000:
            await sink.file(child, img.data(inode), meta);
            break;
          case 0o120000: {
            const parts: Buffer[] = [];
            for await (const part of img.data(inode)) parts.push(part);
            sink.symlink(child, Buffer.concat(parts).toString('utf8'), meta);
            break;
          }
          case 0o020000:
          case 0o060000:
            // Device inodes keep the device number in the size field.
            sink.special(child, 'device', { ...meta, meta: { rdev: inode.size } });
            break;
          case 0o010000:
            sink.special(child, 'fifo', meta);
            break;
          case 0o140000:
            sink.special(child, 'socket', meta);
            break;
          default:
            sink.problem('error', `${child}: unknown file type in mode ${inode.mode.toString(8)}`);
        }
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        sink.problem('error', `${child}: ${error.message}`);
      }
    }
  }
}

export const cramfsHandler: Handler = {
  id: 'cramfs',
  kind: 'filesystem',
  encoded: true, // file data is compressed (the rest is names and sizes); the files hold the content
  doc: {
    title: 'CramFS (little- and big-endian; zlib, vendor LZMA and xz blocks; holes, extended block pointers)',
    references: ['Linux include/uapi/linux/cramfs_fs.h', 'Linux fs/cramfs/inode.c', 'util-linux mkfs.cramfs'],
    limitations: [
      'Images made with mkfs.cramfs -p (512 bytes of boot code before the superblock) are not recognised.',
      'Blocks are zlib (Linux), or LZMA / xz as some vendor kernels write them, detected per block; no LZO.',
    ],
  },
  magics: [{ bytes: Buffer.from([0x45, 0x3d, 0xcd, 0x28]) }, { bytes: Buffer.from([0x28, 0xcd, 0x3d, 0x45]) }],
  confidence: 80,
  chunk,
  extract,
};

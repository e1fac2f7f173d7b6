// SquashFS 2.0/2.1 (little- and big-endian), the layout of early-2000s router firmware (Linux 2.4 kernels). The
// same superblock head as 3.x with 32-bit table pointers, packed bitfield inodes without inode numbers (only
// directories and files carry an mtime; the others take the superblock's), 4-byte directory headers, 8-byte
// fragment entries behind an index of 32-bit pointers, and a directory size that is the listing's exact length.
// Blocks are zlib (or a vendor LZMA variant, read by the same decoder as 3.x). Written from squashfs-tools'
// squashfs_compat.h (layout 2.x) and unsquash-2.c; the directory walk and file streaming are shared with 3 and 4.
import type { ChunkInfo, Handler, Reader, Sink } from '../handler.js';
import { FormatError } from '../handler.js';
import { struct } from '../struct.js';
import { parseBits, type BitLayout } from './squashfs-bits.js';
import { LzmaFamilyDecoder } from './squashfs-compressors.js';
import type { InodeRef, SquashImage, SquashInode } from './squashfs-extract.js';
import { directoryReader, extractSquashfs, fileInode, type DirListingLayout } from './squashfs-extract.js';
import { METADATA_SIZE, MetadataTable, inodeRef, readPointedBlocks, type MetadataSource } from './squashfs-metadata.js';

const superFields = {
  magic: 'u32', inodes: 'u32', bytesUsed: 'u32', uidStart: 'u32', guidStart: 'u32', inodeTable: 'u32',
  directoryTable: 'u32', major: 'u16', minor: 'u16', blockSize1: 'u16', blockLog: 'u16', flags: 'u8',
  uids: 'u8', guids: 'u8', mkfsTime: 'u32', rootInode: 'u64', blockSize: 'u32', fragments: 'u32', fragmentTable: 'u32',
} as const;
const SUPER = { le: struct('le', superFields), be: struct('be', superFields) };
const SUPER_SIZE = SUPER.le.size; // 63 bytes, packed
type SuperblockV2 = ReturnType<(typeof SUPER)['le']['parse']> & { endian: 'le' | 'be' };

const FLAG_CHECK = 0x04;
/** A guid index of 255 means "same as the uid". */
const GUID_SAME_AS_UID = 255;
const FRAGMENT_ENTRY = 8;

// Bit positions of the packed structures (squashfs_compat.h, layout 2.x, as its swap macros give them).
const BASE = { type: [0, 4], mode: [4, 12], uid: [16, 8], guid: [24, 8] } as const satisfies BitLayout;
const DIR = { fileSize: [32, 19], offset: [51, 13], mtime: [64, 32], startBlock: [96, 24] } as const satisfies BitLayout;
const LDIR = { fileSize: [32, 27], offset: [59, 13], mtime: [72, 32], startBlock: [104, 24] } as const satisfies BitLayout;
const REG = { mtime: [32, 32], startBlock: [64, 32], fragment: [96, 32], offset: [128, 32], fileSize: [160, 32] } as const satisfies BitLayout;
const SYMLINK = { size: [32, 16] } as const satisfies BitLayout;
const DEV = { rdev: [32, 16] } as const satisfies BitLayout;
const DIR_HEADER = { count: [0, 8], startBlock: [8, 24] } as const satisfies BitLayout;
const DIR_ENTRY = { offset: [0, 13], type: [13, 3], size: [16, 8] } as const satisfies BitLayout;
/** Inode sizes by type: dir, file, symlink, block and char device, fifo, socket, extended dir. */
const INODE_SIZE: Record<number, number> = { 1: 15, 2: 24, 3: 6, 4: 6, 5: 6, 6: 4, 7: 4, 8: 18 };

const MAGICS: Array<{ bytes: Buffer; endian: 'le' | 'be' }> = [
  { bytes: Buffer.from('hsqs', 'latin1'), endian: 'le' },
  { bytes: Buffer.from('sqsh', 'latin1'), endian: 'be' },
];

export function parseSuperblockV2(buf: Buffer): SuperblockV2 | null {
  if (buf.length < SUPER_SIZE) return null;
  const magic = MAGICS.find((m) => buf.subarray(0, 4).equals(m.bytes));
  if (!magic) return null;
  const sb = { ...SUPER[magic.endian].parse(buf), endian: magic.endian } as SuperblockV2;
  if (sb.major !== 2 || sb.minor > 1) return null;
  if (sb.blockSize < 4096 || sb.blockSize > 1 << 16 || 1 << sb.blockLog !== sb.blockSize) return null;
  const used = sb.bytesUsed;
  if (sb.inodes === 0 || used < SUPER_SIZE) return null;
  const inside = (v: number): boolean => v >= SUPER_SIZE && v < used;
  if (!inside(sb.inodeTable) || !inside(sb.directoryTable) || sb.inodeTable >= sb.directoryTable) return null;
  if (sb.uids === 0 || sb.uidStart + sb.uids * 4 > used || sb.guidStart + sb.guids * 4 > used) return null;
  if (sb.fragments > 0 && !inside(sb.fragmentTable)) return null;
  const rootBlock = Math.floor(sb.rootInode / 65536);
  if (rootBlock >= sb.directoryTable - sb.inodeTable || sb.rootInode % 65536 >= METADATA_SIZE) return null;
  return sb;
}

async function chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
  const sb = parseSuperblockV2(await reader.read(start, SUPER_SIZE));
  if (!sb) return null;
  if (start + sb.bytesUsed > reader.size) {
    throw new FormatError(`truncated: SquashFS says ${sb.bytesUsed} bytes, only ${reader.size - start} available`);
  }
  return {
    start,
    end: start + sb.bytesUsed,
    meta: { version: `2.${sb.minor}`, endian: sb.endian, blockSize: sb.blockSize, inodes: sb.inodes, mkfsTime: sb.mkfsTime },
  };
}

/** The fragment lookup: `count` 8-byte entries in metadata blocks pointed to by 32-bit pointers at `indexStart`. */
async function loadFragments(src: MetadataSource, indexStart: number, count: number): Promise<(index: number) => { start: number; sizeWord: number }> {
  let data: Buffer = Buffer.alloc(0);
  if (count > 0) {
    const blocks = Math.ceil((count * FRAGMENT_ENTRY) / METADATA_SIZE);
    if (indexStart + blocks * 4 > src.limit) throw new FormatError(`fragment index at ${indexStart} runs past the end of the filesystem`);
    const index = await src.reader.readExact(indexStart, blocks * 4);
    const pointers = Array.from({ length: blocks }, (_, i) => src.base + (src.endian === 'le' ? index.readUInt32LE(i * 4) : index.readUInt32BE(i * 4)));
    data = await readPointedBlocks(src, pointers, count * FRAGMENT_ENTRY);
  }
  const le = src.endian === 'le';
  return (index) => {
    if (index >= count) throw new FormatError(`fragment ${index} outside the fragment table (${count})`);
    const at = index * FRAGMENT_ENTRY;
    return { start: le ? data.readUInt32LE(at) : data.readUInt32BE(at), sizeWord: le ? data.readUInt32LE(at + 4) : data.readUInt32BE(at + 4) };
  };
}

export async function openSquashfsV2(reader: Reader, start: number): Promise<SquashImage> {
  const sb = parseSuperblockV2(await reader.readExact(start, SUPER_SIZE));
  if (!sb) throw new FormatError('not a SquashFS 2 superblock');
  const limit = start + sb.bytesUsed;
  if (limit > reader.size) throw new FormatError(`truncated: SquashFS needs ${sb.bytesUsed} bytes`);
  const e = sb.endian;
  const decoder = new LzmaFamilyDecoder(true);
  const src: MetadataSource = { reader, endian: e, decoder, base: start, limit, checkByte: (sb.flags & FLAG_CHECK) !== 0 };
  const u32s = async (at: number, count: number): Promise<number[]> => {
    const raw = await reader.readExact(start + at, count * 4);
    return Array.from({ length: count }, (_, i) => (e === 'le' ? raw.readUInt32LE(i * 4) : raw.readUInt32BE(i * 4)));
  };
  const uids = await u32s(sb.uidStart, sb.uids);
  const guids = await u32s(sb.guidStart, sb.guids);
  const fragment = await loadFragments(src, start + sb.fragmentTable, sb.fragments);
  // The directory table runs up to the next table: the fragment blocks, the fragment index or the id tables.
  const ends = [sb.bytesUsed, sb.uidStart, sb.guidStart, sb.fragmentTable];
  if (sb.fragments > 0) ends.push((await u32s(sb.fragmentTable, 1))[0]!);
  const dirEnd = Math.min(...ends.filter((v) => v > sb.directoryTable && v <= sb.bytesUsed));
  const inodes = await MetadataTable.load(src, start + sb.inodeTable, start + sb.directoryTable);
  const dirs = await MetadataTable.load(src, start + sb.directoryTable, start + dirEnd);

  const readInode = (ref: InodeRef): SquashInode => {
    const where = `inode ${ref.block}:${ref.offset}`;
    const type = parseBits({ type: BASE.type }, inodes.read(ref.block, ref.offset, 1), e).type;
    const size = INODE_SIZE[type];
    if (size === undefined) throw new FormatError(`${where} has unknown type ${type}`);
    const c = inodes.cursor(ref.block, ref.offset);
    const raw = c.take(size);
    const base = parseBits(BASE, raw, e);
    const uid = uids[base.uid];
    if (uid === undefined) throw new FormatError(`${where}: uid index ${base.uid} outside the uid table`);
    const gid = base.guid === GUID_SAME_AS_UID ? uid : guids[base.guid];
    if (gid === undefined) throw new FormatError(`${where}: gid index ${base.guid} outside the gid table`);
    const common = { mode: base.mode, uid, gid, mtime: sb.mkfsTime };
    switch (type) {
      case 1:
      case 8: {
        const d = parseBits(type === 1 ? DIR : LDIR, raw, e);
        return { kind: 'dir', dirBlock: d.startBlock, dirOffset: d.offset, listingSize: d.fileSize, ...common, mtime: d.mtime };
      }
      case 2: {
        const r = parseBits(REG, raw, e);
        return fileInode(r, (n) => c.take(n), { endian: e, blockSize: sb.blockSize, bytesUsed: sb.bytesUsed }, ref, { ...common, mtime: r.mtime });
      }
      case 3:
        return { kind: 'symlink', target: c.take(parseBits(SYMLINK, raw, e).size).toString('utf8'), ...common };
      case 4:
      case 5:
        return { kind: 'device', rdev: parseBits(DEV, raw, e).rdev, ...common };
      case 6:
        return { kind: 'fifo', ...common };
      default:
        return { kind: 'socket', ...common };
    }
  };

  const dirLayout: DirListingLayout = { headerSize: 4, header: (raw) => parseBits(DIR_HEADER, raw, e), entrySize: 3, entry: (raw) => parseBits(DIR_ENTRY, raw, e) };

  return {
    reader,
    base: start,
    limit,
    blockSize: sb.blockSize,
    decoder,
    root: inodeRef(sb.rootInode),
    uncompressedBit: 1 << 24,
    readInode,
    readDir: directoryReader(dirs, dirLayout),
    fragment,
  };
}

export const squashfsV2Handler: Handler = {
  id: 'squashfs-v2',
  kind: 'filesystem',
  doc: {
    title: 'SquashFS 2.0/2.1 (little- and big-endian; zlib and vendor LZMA blocks)',
    references: ['squashfs-tools squashfs_compat.h (layout 2.x) and unsquash-2.c', 'Linux 2.4 squashfs 2.x kernel patch'],
    limitations: ['SquashFS 1.x is not read.', 'The chunk ends at bytes_used; the padding after it is left as a gap.'],
  },
  magics: MAGICS.map((m) => ({ bytes: m.bytes })),
  confidence: 80,
  chunk,
  async extract(reader: Reader, info: ChunkInfo, sink: Sink): Promise<void> {
    await extractSquashfs(await openSquashfsV2(reader, info.start), sink);
  },
};

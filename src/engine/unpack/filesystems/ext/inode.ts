// ext2/3/4 on-disk structures: superblock, group descriptors, inodes, and the mapping of a file's logical blocks
// to disk blocks (ext4 extent trees and ext2/3 direct/indirect block maps). Written from the kernel's
// Documentation/filesystems/ext4 (ondisk layout) and fs/ext4/ext4.h.
import { FormatError } from '../../../format-error.js';
import type { Reader } from '../../handler.js';
import { struct } from '../../struct.js';

export const EXT_MAGIC = 0xef53;
export const SUPERBLOCK_OFFSET = 1024;

export const Superblock = struct('le', {
  inodesCount: 'u32',
  blocksCountLo: 'u32',
  rBlocksCount: 'u32',
  freeBlocks: 'u32',
  freeInodes: 'u32',
  firstDataBlock: 'u32',
  logBlockSize: 'u32',
  logClusterSize: 'u32',
  blocksPerGroup: 'u32',
  clustersPerGroup: 'u32',
  inodesPerGroup: 'u32',
  mtime: 'u32',
  wtime: 'u32',
  mntCount: 'u16',
  maxMntCount: 'u16',
  magic: 'u16',
  state: 'u16',
  errors: 'u16',
  minorRev: 'u16',
  lastCheck: 'u32',
  checkInterval: 'u32',
  creatorOs: 'u32',
  revLevel: 'u32',
  defResuid: 'u16',
  defResgid: 'u16',
  firstIno: 'u32',
  inodeSize: 'u16',
  blockGroupNr: 'u16',
  featureCompat: 'u32',
  featureIncompat: 'u32',
  featureRoCompat: 'u32',
  uuid: 'bytes[16]',
  volumeName: 'char[16]',
  lastMounted: 'char[64]',
  algorithmBitmap: 'u32',
  preallocBlocks: 'u8',
  preallocDirBlocks: 'u8',
  reservedGdtBlocks: 'u16',
  journalUuid: 'bytes[16]',
  journalInum: 'u32',
  journalDev: 'u32',
  lastOrphan: 'u32',
  hashSeed: 'bytes[16]',
  defHashVersion: 'u8',
  jnlBackupType: 'u8',
  descSize: 'u16',
  defaultMountOpts: 'u32',
  firstMetaBg: 'u32',
  mkfsTime: 'u32',
  jnlBlocks: 'bytes[68]',
  blocksCountHi: 'u32',
});

export const COMPAT_HAS_JOURNAL = 0x4;
export const INCOMPAT_COMPRESSION = 0x1;
export const INCOMPAT_FILETYPE = 0x2;
export const INCOMPAT_JOURNAL_DEV = 0x8;
export const INCOMPAT_META_BG = 0x10;
export const INCOMPAT_EXTENTS = 0x40;
export const INCOMPAT_64BIT = 0x80;
export const INCOMPAT_INLINE_DATA = 0x8000;
export const RO_COMPAT_SPARSE_SUPER = 0x1;
export const RO_COMPAT_HUGE_FILE = 0x8;

export const FL_INDEX = 0x1000;
export const FL_EXTENTS = 0x80000;
export const FL_INLINE_DATA = 0x10000000;

export type SuperblockFields = ReturnType<typeof Superblock.parse>;

export interface ExtGeometry {
  sb: SuperblockFields;
  blockSize: number;
  blocksCount: number;
  groupCount: number;
  inodeSize: number;
  descSize: number;
  is64: boolean;
}

/** Validates a superblock read at chunk offset 1024; returns null when it cannot be an ext filesystem. */
export function parseGeometry(raw: Buffer): ExtGeometry | null {
  const sb = Superblock.parse(raw);
  if (sb.magic !== EXT_MAGIC) return null;
  if (sb.logBlockSize > 6) return null; // 1 KiB .. 64 KiB
  const blockSize = 1024 << sb.logBlockSize;
  const is64 = (sb.featureIncompat & INCOMPAT_64BIT) !== 0;
  const blocksCount = sb.blocksCountLo + (is64 ? sb.blocksCountHi * 2 ** 32 : 0);
  if (blocksCount === 0 || sb.inodesCount === 0 || sb.blocksPerGroup === 0 || sb.inodesPerGroup === 0) return null;
  if (sb.firstDataBlock !== (blockSize === 1024 ? 1 : 0) && sb.firstDataBlock !== 0) return null;
  if (sb.revLevel > 1) return null;
  const inodeSize = sb.revLevel === 0 ? 128 : sb.inodeSize;
  if (inodeSize < 128 || inodeSize > blockSize || (inodeSize & (inodeSize - 1)) !== 0) return null;
  const descSize = is64 ? sb.descSize : 32;
  if (descSize < 32 || descSize > blockSize || (descSize & (descSize - 1)) !== 0) return null;
  const groupCount = Math.ceil((blocksCount - sb.firstDataBlock) / sb.blocksPerGroup);
  if (groupCount === 0 || sb.inodesPerGroup * groupCount < sb.inodesCount) return null;
  return { sb, blockSize, blocksCount, groupCount, inodeSize, descSize, is64 };
}

export interface Inode {
  ino: number;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  mtime: number;
  links: number;
  flags: number;
  /** i_blocks in 512-byte units, and the extended-attribute block (0 = none): tell fast from slow symlinks. */
  sectors: number;
  fileAcl: number;
  /** The 60-byte i_block area: block map, extent tree root, fast symlink target or inline data. */
  block: Buffer;
  /** Bytes of the inode after the 128-byte base (extended fields and in-inode extended attributes). */
  extra: Buffer;
}

export function parseInode(ino: number, raw: Buffer): Inode {
  const uidHigh = raw.readUInt16LE(120);
  const gidHigh = raw.readUInt16LE(122);
  return {
    ino,
    mode: raw.readUInt16LE(0),
    uid: raw.readUInt16LE(2) | (uidHigh << 16),
    gid: raw.readUInt16LE(24) | (gidHigh << 16),
    size: raw.readUInt32LE(4) + raw.readUInt32LE(108) * 2 ** 32,
    mtime: raw.readUInt32LE(16),
    links: raw.readUInt16LE(26),
    flags: raw.readUInt32LE(32),
    sectors: raw.readUInt32LE(28) + raw.readUInt16LE(116) * 2 ** 32,
    fileAcl: raw.readUInt32LE(104) + raw.readUInt16LE(118) * 2 ** 32,
    block: raw.subarray(40, 100),
    extra: raw.subarray(128),
  };
}

/** One run of a file's logical blocks: `length` blocks from `logical` stored at `physical` (0 = hole). */
export interface Run {
  logical: number;
  physical: number;
  length: number;
  /** ext4 "unwritten" extents read as zeros. */
  zero: boolean;
}

const EXTENT_MAGIC = 0xf30a;
const MAX_EXTENT_DEPTH = 5;

/** Reads the block at `block` of the filesystem starting at `base`; throws FormatError when out of range. */
export type BlockSource = (block: number) => Promise<Buffer>;

/** Collects the leaf extents of an extent tree rooted at `root` (the i_block area or an index block). */
export async function extentRuns(root: Buffer, readBlock: BlockSource, maxLogical: number): Promise<Runs> {
  const runs: Run[] = [];
  const seen = new Set<number>();
  const walk = async (node: Buffer, depthLeft: number): Promise<void> => {
    if (node.readUInt16LE(0) !== EXTENT_MAGIC) throw new FormatError('bad extent header magic');
    const entries = node.readUInt16LE(2);
    const depth = node.readUInt16LE(6);
    if (depth > depthLeft) throw new FormatError(`extent tree deeper than ${MAX_EXTENT_DEPTH}`);
    if (12 + entries * 12 > node.length) throw new FormatError('extent node overflows its block');
    for (let i = 0; i < entries; i++) {
      const at = 12 + i * 12;
      const logical = node.readUInt32LE(at);
      if (logical >= maxLogical) break;
      if (depth === 0) {
        let length = node.readUInt16LE(at + 4);
        const zero = length > 32768;
        if (zero) length -= 32768;
        const physical = node.readUInt16LE(at + 6) * 2 ** 32 + node.readUInt32LE(at + 8);
        runs.push({ logical, physical, length: Math.min(length, maxLogical - logical), zero });
      } else {
        const child = node.readUInt32LE(at + 4) + node.readUInt16LE(at + 8) * 2 ** 32;
        if (seen.has(child)) throw new FormatError(`extent tree loop at block ${child}`);
        seen.add(child);
        await walk(await readBlock(child), depth - 1);
      }
    }
  };
  await walk(root, MAX_EXTENT_DEPTH);
  return normalise(runs);
}

/** Collects the runs of an ext2/3 block map: 12 direct pointers, then single, double and triple indirect. */
export async function blockMapRuns(
  iblock: Buffer,
  readBlock: BlockSource,
  blockSize: number,
  maxLogical: number,
  maxTables: number,
): Promise<Runs> {
  const perBlock = blockSize / 4;
  const runs: Run[] = [];
  const add = (logical: number, physical: number) => {
    if (physical === 0 || logical >= maxLogical) return;
    const last = runs[runs.length - 1];
    if (last && last.logical + last.length === logical && last.physical + last.length === physical) last.length++;
    else runs.push({ logical, physical, length: 1, zero: false });
  };
  for (let i = 0; i < 12; i++) add(i, iblock.readUInt32LE(i * 4));
  // Each level of indirection covers perBlock^level logical blocks. A corrupt pointer table could fan out to
  // perBlock^3 reads, so the tables read are capped by what the filesystem could hold.
  let tables = 0;
  const legitimate = Math.ceil(maxLogical / perBlock) + Math.ceil(maxLogical / perBlock ** 2) + 3;
  const cap = Math.min(maxTables, legitimate);
  const indirect = async (block: number, level: number, first: number): Promise<void> => {
    if (block === 0 || first >= maxLogical) return;
    if (++tables > cap) throw new FormatError('block map reads more indirect blocks than the filesystem has');
    const table = await readBlock(block);
    const span = perBlock ** (level - 1);
    for (let i = 0; i < perBlock; i++) {
      const ptr = table.readUInt32LE(i * 4);
      const logical = first + i * span;
      if (logical >= maxLogical) break;
      if (level === 1) add(logical, ptr);
      else await indirect(ptr, level - 1, logical);
    }
  };
  await indirect(iblock.readUInt32LE(48), 1, 12);
  await indirect(iblock.readUInt32LE(52), 2, 12 + perBlock);
  await indirect(iblock.readUInt32LE(56), 3, 12 + perBlock + perBlock ** 2);
  return normalise(runs);
}

export type Runs = Run[];

/** Sorts runs and drops overlaps (a corrupt map must not make us write a block twice or go backwards). */
function normalise(runs: Run[]): Run[] {
  runs.sort((a, b) => a.logical - b.logical);
  const out: Run[] = [];
  let next = 0;
  for (const run of runs) {
    if (run.length <= 0) continue;
    if (run.logical < next) {
      const skip = next - run.logical;
      if (skip >= run.length) continue;
      out.push({ ...run, logical: next, physical: run.physical + skip, length: run.length - skip });
    } else out.push(run);
    next = out[out.length - 1]!.logical + out[out.length - 1]!.length;
  }
  return out;
}

/** The "system.data" extended attribute in the inode body: the part of inline data beyond i_block's 60 bytes. */
export function inlineDataTail(inode: Inode): Buffer {
  const extra = inode.extra;
  if (extra.length < 4) return Buffer.alloc(0);
  const extraIsize = extra.readUInt16LE(0);
  const start = extraIsize;
  if (start + 4 > extra.length || extra.readUInt32LE(start) !== 0xea020000) return Buffer.alloc(0);
  const entries = start + 4;
  let at = entries;
  while (at + 16 <= extra.length && extra.readUInt32LE(at) !== 0) {
    const nameLen = extra[at]!;
    const nameIndex = extra[at + 1]!;
    const valueOffs = extra.readUInt16LE(at + 2);
    const valueSize = extra.readUInt32LE(at + 8);
    const name = extra.subarray(at + 16, at + 16 + nameLen).toString('latin1');
    if (nameIndex === 7 && name === 'data') {
      const from = entries + valueOffs;
      if (from + valueSize > extra.length) throw new FormatError(`inode ${inode.ino}: inline data attribute overflows the inode`);
      return extra.subarray(from, from + valueSize);
    }
    at += (16 + nameLen + 3) & ~3;
  }
  return Buffer.alloc(0);
}

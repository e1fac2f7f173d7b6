// SquashFS 1.x and 2.0/2.1 (little- and big-endian), the layouts of early-2000s router firmware (Linux 2.4
// kernels). The superblock head of 3.x with 32-bit table pointers, packed bitfield inodes without inode numbers
// (only directories and files carry an mtime; the others take the superblock's), 4-byte directory headers and a
// directory size that is the listing's exact length. 2.x adds fragments (8-byte entries behind an index of 32-bit
// pointers) and extended directories. 1.x has no fragments, 16-bit block sizes in the file inodes, 4-bit uid/gid
// indexes whose high uid bits ride in the inode type (type + 5 × n; fifos and sockets are one IPC type 0), and its
// uid and gid tables back to back. Blocks are zlib (or a vendor LZMA variant, read by the same decoder as 3.x).
// Written from squashfs-tools' squashfs_compat.h (layouts 1.x and 2.x), unsquash-1.c and unsquash-2.c; the directory
// walk and file streaming are shared with 3 and 4.
import type { Handler } from '../../handler.js';
import { FormatError } from '../../../format-error.js';
import { struct } from '../../struct.js';
import { parseBits, type BitLayout } from './bits.js';
import type { InodeCommon, InodeRef, SquashInode } from './extract.js';
import { directoryReader, fileInode, type DirListingLayout } from './extract.js';
import { directoryTableEnd, legacyBlocks, legacyTablesFit, readLegacyIds, squashfsHandlerParts, UNCOMPRESSED, type SquashTables, type SquashVersion } from './handler.js';
import { METADATA_SIZE, MetadataTable, inodeOwner, readWords, readPointedBlocks, type MetadataSource } from './metadata.js';

const superFields = {
  magic: 'u32', inodes: 'u32', bytesUsed: 'u32', uidStart: 'u32', guidStart: 'u32', inodeTable: 'u32',
  directoryTable: 'u32', major: 'u16', minor: 'u16', blockSize1: 'u16', blockLog: 'u16', flags: 'u8',
  uids: 'u8', guids: 'u8', mkfsTime: 'u32', rootInode: 'u64', blockSize: 'u32', fragments: 'u32', fragmentTable: 'u32',
} as const;
const SUPER = { le: struct('le', superFields), be: struct('be', superFields) };
const SUPER_SIZE = SUPER.le.size; // 63 bytes, packed
type SuperblockV2 = ReturnType<(typeof SUPER)['le']['parse']> & { endian: 'le' | 'be' };

const FRAGMENT_ENTRY = 8;
const NO_FRAGMENT = 0xffffffff;

// Bit positions of the packed structures (squashfs_compat.h, as its swap macros give them), per major version.
interface InodeLayout {
  base: { type: readonly [number, number]; mode: readonly [number, number]; uid: readonly [number, number]; guid: readonly [number, number] };
  /** The gid index that means "same as the uid". */
  guidSameAsUid: number;
  dir: { fileSize: readonly [number, number]; offset: readonly [number, number]; mtime: readonly [number, number]; startBlock: readonly [number, number] };
  ldir?: InodeLayout['dir'];
  reg: { mtime: readonly [number, number]; startBlock: readonly [number, number]; fileSize: readonly [number, number]; fragment?: readonly [number, number]; offset?: readonly [number, number] };
  /** The 16-bit field after the base: a symlink's length or a device's rdev. */
  short: { value: readonly [number, number] };
  /** Inode sizes by type: dir, file, symlink, block and char device, fifo, socket, extended dir. */
  sizes: Record<number, number>;
}
const LAYOUT: Record<1 | 2, InodeLayout> = {
  1: {
    base: { type: [0, 4], mode: [4, 12], uid: [16, 4], guid: [20, 4] },
    guidSameAsUid: 15,
    dir: { fileSize: [24, 19], offset: [43, 13], mtime: [56, 32], startBlock: [88, 24] },
    reg: { mtime: [24, 32], startBlock: [56, 32], fileSize: [88, 32] },
    short: { value: [24, 16] },
    sizes: { 1: 14, 2: 15, 3: 5, 4: 5, 5: 5, 6: 4, 7: 4 },
  },
  2: {
    base: { type: [0, 4], mode: [4, 12], uid: [16, 8], guid: [24, 8] },
    guidSameAsUid: 255,
    dir: { fileSize: [32, 19], offset: [51, 13], mtime: [64, 32], startBlock: [96, 24] },
    ldir: { fileSize: [32, 27], offset: [59, 13], mtime: [72, 32], startBlock: [104, 24] },
    reg: { mtime: [32, 32], startBlock: [64, 32], fragment: [96, 32], offset: [128, 32], fileSize: [160, 32] },
    short: { value: [32, 16] },
    sizes: { 1: 15, 2: 24, 3: 6, 4: 6, 5: 6, 6: 4, 7: 4, 8: 18 },
  },
};
/** 1.x IPC inode (type 0): fifo or socket, and the high bits of the uid index. */
const IPC_1 = { kind: [24, 4], uidHigh: [28, 4] } as const satisfies BitLayout;
const TYPES_1 = 5;
const DIR_HEADER = { count: [0, 8], startBlock: [8, 24] } as const satisfies BitLayout;
const DIR_ENTRY = { offset: [0, 13], type: [13, 3], size: [16, 8] } as const satisfies BitLayout;

const MAGICS: Array<{ bytes: Buffer; endian: 'le' | 'be' }> = [
  { bytes: Buffer.from('hsqs', 'latin1'), endian: 'le' },
  { bytes: Buffer.from('sqsh', 'latin1'), endian: 'be' },
];

export function parseSuperblockV2(buf: Buffer): SuperblockV2 | null {
  if (buf.length < SUPER_SIZE) return null;
  const magic = MAGICS.find((m) => buf.subarray(0, 4).equals(m.bytes));
  if (!magic) return null;
  const sb = { ...SUPER[magic.endian].parse(buf), endian: magic.endian } as SuperblockV2;
  if ((sb.major !== 1 && sb.major !== 2) || sb.minor > 1) return null;
  if (sb.major === 1) {
    // 1.x: a 16-bit block size, no fragments, the gid table right after the uid table.
    Object.assign(sb, { blockSize: sb.blockSize1, fragments: 0, fragmentTable: 0, guidStart: sb.uidStart + sb.uids * 4 });
    if (sb.blockSize < 512 || sb.blockSize > 1 << 15) return null;
  } else if (sb.blockSize < 4096 || sb.blockSize > 1 << 16) return null;
  if (1 << sb.blockLog !== sb.blockSize) return null;
  return legacyTablesFit(sb, SUPER_SIZE) ? sb : null;
}

/** The fragment lookup: `count` 8-byte entries in metadata blocks pointed to by 32-bit pointers at `indexAt`. */
async function loadFragments(src: MetadataSource, indexAt: number, count: number): Promise<(index: number) => { start: number; sizeWord: number }> {
  let data: Buffer = Buffer.alloc(0);
  if (count > 0) {
    const blocks = Math.ceil((count * FRAGMENT_ENTRY) / METADATA_SIZE);
    if (src.base + indexAt + blocks * 4 > src.limit) throw new FormatError(`fragment index at ${indexAt} runs past the end of the filesystem`);
    const pointers = await readWords(src, indexAt, blocks);
    data = await readPointedBlocks(src, pointers.map((p) => src.base + p), count * FRAGMENT_ENTRY);
  }
  const le = src.endian === 'le';
  return (index) => {
    if (index >= count) throw new FormatError(`fragment ${index} outside the fragment table (${count})`);
    const at = index * FRAGMENT_ENTRY;
    return { start: le ? data.readUInt32LE(at) : data.readUInt32BE(at), sizeWord: le ? data.readUInt32LE(at + 4) : data.readUInt32BE(at + 4) };
  };
}

/**
 * A 1.x file inode: every block (the tail too: there are no fragments) has a 16-bit size word, bit 15 set when
 * stored uncompressed, 0x8000 alone meaning a 32 KiB block stored as is. Converted to the 3.x/4.x size words.
 */
function fileInodeV1(
  r: { startBlock: number; fileSize: number },
  take: (bytes: number) => Buffer,
  fs: { endian: 'le' | 'be'; blockSize: number; bytesUsed: number },
  ref: InodeRef,
  common: InodeCommon,
): SquashInode {
  const count = Math.ceil(r.fileSize / fs.blockSize);
  if (count * 2 > fs.bytesUsed) throw new FormatError(`inode ${ref.block}:${ref.offset}: file size ${r.fileSize} is impossible`);
  const list = take(count * 2);
  const blockSizes = Array.from({ length: count }, (_, i) => {
    const word = fs.endian === 'le' ? list.readUInt16LE(i * 2) : list.readUInt16BE(i * 2);
    return ((word & 0x7fff) || 0x8000) | (word & 0x8000 ? UNCOMPRESSED : 0);
  });
  return { kind: 'file', blocksStart: r.startBlock, fileSize: r.fileSize, fragment: -1, fragmentOffset: 0, blockSizes, ...common };
}

async function openTables(src: MetadataSource, sb: SuperblockV2): Promise<SquashTables> {
  const e = sb.endian;
  const start = src.base;
  const layout = LAYOUT[sb.major as 1 | 2];
  const ids = await readLegacyIds(src, sb, layout.guidSameAsUid);
  const fragment = await loadFragments(src, sb.fragmentTable, sb.fragments);
  // The directory table runs up to the next table: the fragment blocks, the fragment index or the id tables.
  const ends = [sb.bytesUsed, sb.uidStart, sb.guidStart];
  if (sb.major === 2) ends.push(sb.fragmentTable);
  if (sb.fragments > 0) ends.push((await readWords(src, sb.fragmentTable, 1))[0]!); // the first fragment block's pointer
  const inodes = await MetadataTable.load(src, start + sb.inodeTable, start + sb.directoryTable);
  const dirs = await MetadataTable.load(src, start + sb.directoryTable, start + directoryTableEnd(sb, ends));

  /** The inode's type and the high bits of its uid index (1.x folds them into the stored type). */
  const typeOf = (ref: InodeRef): { type: number; uidHigh: number } => {
    const stored = parseBits({ type: layout.base.type }, inodes.read(ref.block, ref.offset, 1), e).type;
    if (sb.major === 2) return { type: stored, uidHigh: 0 };
    if (stored !== 0) return { type: ((stored - 1) % TYPES_1) + 1, uidHigh: Math.floor((stored - 1) / TYPES_1) };
    const ipc = parseBits(IPC_1, inodes.read(ref.block, ref.offset, 4), e);
    return { type: ipc.kind === 7 ? 7 : 6, uidHigh: ipc.uidHigh };
  };
  const fs = { endian: e, blockSize: sb.blockSize, bytesUsed: sb.bytesUsed };

  const readInode = (ref: InodeRef): SquashInode => {
    const where = `inode ${ref.block}:${ref.offset}`;
    const { type, uidHigh } = typeOf(ref);
    const size = layout.sizes[type];
    if (size === undefined) throw new FormatError(`${where} has unknown type ${type}`);
    const c = inodes.cursor(ref.block, ref.offset);
    const raw = c.take(size);
    const base = parseBits(layout.base, raw, e);
    const common = { mode: base.mode, ...inodeOwner(ids, uidHigh * 16 + base.uid, base.guid, where), mtime: sb.mkfsTime };
    switch (type) {
      case 1:
      case 8: {
        const d = parseBits(type === 1 ? layout.dir : layout.ldir!, raw, e);
        return { kind: 'dir', dirBlock: d.startBlock, dirOffset: d.offset, listingSize: d.fileSize, ...common, mtime: d.mtime };
      }
      case 2: {
        const r = parseBits(layout.reg, raw, e);
        if (sb.major === 2) return fileInode({ fragment: NO_FRAGMENT, offset: 0, ...r }, (n) => c.take(n), fs, ref, { ...common, mtime: r.mtime });
        return fileInodeV1(r, (n) => c.take(n), fs, ref, { ...common, mtime: r.mtime });
      }
      case 3:
        return { kind: 'symlink', target: c.take(parseBits(layout.short, raw, e).value).toString('utf8'), ...common };
      case 4:
      case 5:
        return { kind: 'device', rdev: parseBits(layout.short, raw, e).value, ...common };
      case 6:
        return { kind: 'fifo', ...common };
      default:
        return { kind: 'socket', ...common };
    }
  };

  const dirLayout: DirListingLayout = { headerSize: 4, header: (raw) => parseBits(DIR_HEADER, raw, e), entrySize: 3, entry: (raw) => parseBits(DIR_ENTRY, raw, e) };

  return { readInode, readDir: directoryReader(dirs, dirLayout), fragment };
}

const V2: SquashVersion<SuperblockV2> = {
  name: 'SquashFS 1/2',
  superSize: SUPER_SIZE,
  parse: parseSuperblockV2,
  meta: (sb) => ({ version: `${sb.major}.${sb.minor}`, endian: sb.endian, blockSize: sb.blockSize, inodes: sb.inodes, mkfsTime: sb.mkfsTime }),
  ...legacyBlocks,
  open: openTables,
};

export const squashfsV2Handler: Handler = {
  id: 'squashfs-v2',
  kind: 'filesystem',
  encoded: true, // data and metadata blocks are compressed; the files hold the content
  doc: {
    title: 'SquashFS 1.x and 2.0/2.1 (little- and big-endian; zlib and vendor LZMA blocks)',
    references: ['squashfs-tools squashfs_compat.h (layouts 1.x and 2.x), unsquash-1.c and unsquash-2.c', 'Linux 2.4 squashfs 1.x/2.x kernel patches'],
    limitations: ['The directory index of 2.x extended directories is not used (listings are read in full).', 'The chunk ends at bytes_used; the padding after it is left as a gap.'],
  },
  magics: MAGICS.map((m) => ({ bytes: m.bytes })),
  confidence: 80,
  ...squashfsHandlerParts(V2),
};

// SquashFS 3.0/3.1 (little- and big-endian), the layout of older router firmware: packed bitfield inodes,
// raw uid/gid tables, zlib blocks, and the vendor LZMA variants (sqlzma's mixed zlib/LZMA blocks, LZMA-alone
// blocks, props + raw stream blocks, and the 'shsq' magic). Written from squashfs-tools' squashfs_compat.h
// (layout 3.x) and the 3.x unsquashfs; the directory walk and file streaming are shared with SquashFS 4.
import type { Handler } from '../../handler.js';
import { FormatError } from '../../../format-error.js';
import { struct } from '../../struct.js';
import { parseBits, type BitLayout } from './bits.js';
import type { InodeRef, SquashInode } from './extract.js';
import { fileInode, directoryReader, type DirListingLayout } from './extract.js';
import { directoryTableEnd, legacyBlocks, legacyTablesFit, readLegacyIds, squashfsHandlerParts, type SquashTables, type SquashVersion } from './handler.js';
import { MetadataTable, inodeOwner, loadFragmentTable, readPointer64, type MetadataSource } from './metadata.js';

const superFields = {
  magic: 'u32', inodes: 'u32', bytesUsed2: 'u32', uidStart2: 'u32', guidStart2: 'u32', inodeTable2: 'u32',
  directoryTable2: 'u32', major: 'u16', minor: 'u16', blockSize1: 'u16', blockLog: 'u16', flags: 'u8',
  uids: 'u8', guids: 'u8', mkfsTime: 'u32', rootInode: 'u64', blockSize: 'u32', fragments: 'u32',
  fragmentTable2: 'u32', bytesUsed: 'u64', uidStart: 'u64', guidStart: 'u64', inodeTable: 'u64',
  directoryTable: 'u64', fragmentTable: 'u64', lookupTable: 'u64',
} as const;
const SUPER = { le: struct('le', superFields), be: struct('be', superFields) };
const SUPER_SIZE = SUPER.le.size; // 119 bytes, packed
type SuperblockV3 = ReturnType<(typeof SUPER)['le']['parse']> & { endian: 'le' | 'be'; lzmaMagic: boolean };

/** A guid index of 255 means "same as the uid". */
const GUID_SAME_AS_UID = 255;

// Bit positions of the packed structures (see squashfs_compat.h, layout 3.x).
const BASE = { type: [0, 4], mode: [4, 12], uid: [16, 8], guid: [24, 8], mtime: [32, 32], number: [64, 32] } as const satisfies BitLayout;
const DIR = { fileSize: [128, 19], offset: [147, 13], startBlock: [160, 32] } as const satisfies BitLayout;
const LDIR = { fileSize: [128, 27], offset: [155, 13], startBlock: [168, 32] } as const satisfies BitLayout;
const REG = { startBlock: [96, 64], fragment: [160, 32], offset: [192, 32], fileSize: [224, 32] } as const satisfies BitLayout;
const LREG = { startBlock: [128, 64], fragment: [192, 32], offset: [224, 32], fileSize: [256, 64] } as const satisfies BitLayout;
const SYMLINK = { size: [128, 16] } as const satisfies BitLayout;
const DEV = { rdev: [128, 16] } as const satisfies BitLayout;
const DIR_HEADER = { count: [0, 8], startBlock: [8, 32], inodeNumber: [40, 32] } as const satisfies BitLayout;
const DIR_ENTRY = { offset: [0, 13], type: [13, 3], size: [16, 8], inodeNumber: [24, 16] } as const satisfies BitLayout;
const INODE_SIZE: Record<number, number> = { 1: 28, 2: 32, 3: 18, 4: 18, 5: 18, 6: 16, 7: 16, 8: 31, 9: 40 };

const MAGICS: Array<{ bytes: Buffer; endian: 'le' | 'be'; lzma: boolean }> = [
  { bytes: Buffer.from('hsqs', 'latin1'), endian: 'le', lzma: false },
  { bytes: Buffer.from('sqsh', 'latin1'), endian: 'be', lzma: false },
  { bytes: Buffer.from('shsq', 'latin1'), endian: 'le', lzma: true },
  { bytes: Buffer.from('qshs', 'latin1'), endian: 'be', lzma: true },
];

export function parseSuperblockV3(buf: Buffer): SuperblockV3 | null {
  if (buf.length < SUPER_SIZE) return null;
  const magic = MAGICS.find((m) => buf.subarray(0, 4).equals(m.bytes));
  if (!magic) return null;
  const sb = { ...SUPER[magic.endian].parse(buf), endian: magic.endian, lzmaMagic: magic.lzma } as SuperblockV3;
  if (sb.major !== 3 || sb.minor > 1) return null;
  if (sb.blockSize < 4096 || sb.blockSize > 1 << 20 || 1 << sb.blockLog !== sb.blockSize) return null;
  return legacyTablesFit(sb, SUPER_SIZE) ? sb : null;
}

async function openTables(src: MetadataSource, sb: SuperblockV3): Promise<SquashTables> {
  const e = sb.endian;
  const start = src.base;
  const ids = await readLegacyIds(src, sb, GUID_SAME_AS_UID);
  const fragment = await loadFragmentTable(src, start + sb.fragmentTable, sb.fragments);
  const ends = [sb.bytesUsed, sb.uidStart, sb.guidStart, sb.fragmentTable, sb.lookupTable];
  if (sb.fragments > 0) ends.push(await readPointer64(src, sb.fragmentTable));
  const inodes = await MetadataTable.load(src, start + sb.inodeTable, start + sb.directoryTable);
  const dirs = await MetadataTable.load(src, start + sb.directoryTable, start + directoryTableEnd(sb, ends));

  const readInode = (ref: InodeRef): SquashInode => {
    const where = `inode ${ref.block}:${ref.offset}`;
    const head = inodes.read(ref.block, ref.offset, 12);
    const type = parseBits({ type: BASE.type }, head, e).type;
    const size = INODE_SIZE[type];
    if (size === undefined) throw new FormatError(`${where} has unknown type ${type}`);
    const c = inodes.cursor(ref.block, ref.offset);
    const raw = c.take(size);
    const base = parseBits(BASE, raw, e);
    const common = { mode: base.mode, ...inodeOwner(ids, base.uid, base.guid, where), mtime: base.mtime };
    switch (type) {
      case 1:
      case 8: {
        const d = parseBits(type === 1 ? DIR : LDIR, raw, e);
        return { kind: 'dir', dirBlock: d.startBlock, dirOffset: d.offset, listingSize: Math.max(0, d.fileSize - 3), ...common };
      }
      case 2:
      case 9: {
        const r = parseBits(type === 2 ? REG : LREG, raw, e);
        return fileInode(r, (n) => c.take(n), { endian: e, blockSize: sb.blockSize, bytesUsed: sb.bytesUsed }, ref, common);
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

  const dirLayout: DirListingLayout = { headerSize: 9, header: (raw) => parseBits(DIR_HEADER, raw, e), entrySize: 5, entry: (raw) => parseBits(DIR_ENTRY, raw, e) };
  return { readInode, readDir: directoryReader(dirs, dirLayout), fragment };
}

const V3: SquashVersion<SuperblockV3> = {
  name: 'SquashFS 3',
  superSize: SUPER_SIZE,
  parse: parseSuperblockV3,
  meta: (sb) => ({ version: `3.${sb.minor}`, endian: sb.endian, blockSize: sb.blockSize, inodes: sb.inodes, mkfsTime: sb.mkfsTime, lzmaMagic: sb.lzmaMagic }),
  ...legacyBlocks,
  open: openTables,
};

export const squashfsV3Handler: Handler = {
  id: 'squashfs-v3',
  kind: 'filesystem',
  encoded: true, // data and metadata blocks are compressed; the files hold the content
  doc: {
    title: 'SquashFS 3.0/3.1 (little- and big-endian; zlib and vendor LZMA blocks)',
    references: [
      'squashfs-tools squashfs_compat.h (layout 3.x) and unsquashfs 3.x',
      'sqlzma / firmware-mod-kit squashfs-3.x-lzma',
      'sasquatch (devttys0/sasquatch) for vendor LZMA block layouts',
    ],
    limitations: ['SquashFS 1.x and 2.x are read by the squashfs-v2 handler.', 'The chunk ends at bytes_used; the padding after it is left as a gap.'],
  },
  magics: MAGICS.map((m) => ({ bytes: m.bytes })),
  confidence: 80,
  ...squashfsHandlerParts(V3),
};

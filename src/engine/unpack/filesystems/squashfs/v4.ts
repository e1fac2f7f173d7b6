// SquashFS 4.0 (little-endian as Linux and squashfs-tools write it; big-endian as some vendor tools do), with
// gzip, lzma (incl. vendor block layouts), lzo, xz, lz4 and zstd blocks. Written from Linux fs/squashfs/
// squashfs_fs.h and the squashfs-tools format notes; the vendor LZMA layouts from the sasquatch project.
import type { Handler } from '../../handler.js';
import { FormatError } from '../../../format-error.js';
import { struct } from '../../struct.js';
import { COMPRESSION_NAMES, decoderFor } from './compressors.js';
import type { InodeRef, SquashInode } from './extract.js';
import { fileInode, directoryReader, type DirListingLayout } from './extract.js';
import { directoryTableEnd, rootInodeFits, squashfsHandlerParts, type SquashTables, type SquashVersion } from './handler.js';
import { MetadataTable, loadFragmentTable, readIndexedTable, readPointer64, type MetadataSource } from './metadata.js';

const superFields = {
  magic: 'u32', inodes: 'u32', mkfsTime: 'u32', blockSize: 'u32', fragments: 'u32',
  compression: 'u16', blockLog: 'u16', flags: 'u16', ids: 'u16', major: 'u16', minor: 'u16',
  rootInode: 'u64', bytesUsed: 'u64', idTable: 'u64', xattrTable: 'u64', inodeTable: 'u64',
  directoryTable: 'u64', fragmentTable: 'u64', lookupTable: 'u64',
} as const;
const SUPER = { le: struct('le', superFields), be: struct('be', superFields) };
const SUPER_SIZE = SUPER.le.size; // 96 bytes
export type SuperblockV4 = ReturnType<(typeof SUPER)['le']['parse']> & { endian: 'le' | 'be' };

/** 0xffffffffffffffff as a JavaScript number (struct reads u64 as numbers): "table absent". */
const ABSENT = 2 ** 64;

const inodeFields = { type: 'u16', mode: 'u16', uid: 'u16', gid: 'u16', mtime: 'u32', number: 'u32' } as const;
const layouts = <F extends Parameters<typeof struct>[1]>(fields: F) => ({ le: struct('le', fields), be: struct('be', fields) });
const INODE = layouts(inodeFields);
const DIR = layouts({ startBlock: 'u32', nlink: 'u32', fileSize: 'u16', offset: 'u16', parent: 'u32' });
const LDIR = layouts({ nlink: 'u32', fileSize: 'u32', startBlock: 'u32', parent: 'u32', indexCount: 'u16', offset: 'u16', xattr: 'u32' });
const REG = layouts({ startBlock: 'u32', fragment: 'u32', offset: 'u32', fileSize: 'u32' });
const LREG = layouts({ startBlock: 'u64', fileSize: 'u64', sparse: 'u64', nlink: 'u32', fragment: 'u32', offset: 'u32', xattr: 'u32' });
const SYMLINK = layouts({ nlink: 'u32', size: 'u32' });
const DEV = layouts({ nlink: 'u32', rdev: 'u32' });
const DIR_HEADER = layouts({ count: 'u32', startBlock: 'u32', inodeNumber: 'u32' });
const DIR_ENTRY = layouts({ offset: 'u16', inodeDelta: 'i16', type: 'u16', size: 'u16' });

const MAGIC_LE = Buffer.from('hsqs', 'latin1');
const MAGIC_BE = Buffer.from('sqsh', 'latin1');

/** Parses and strictly validates a SquashFS 4 superblock; null for anything that is not one (quiet). */
export function parseSuperblockV4(buf: Buffer): SuperblockV4 | null {
  if (buf.length < SUPER_SIZE) return null;
  const endian = buf.subarray(0, 4).equals(MAGIC_LE) ? 'le' : buf.subarray(0, 4).equals(MAGIC_BE) ? 'be' : null;
  if (!endian) return null;
  const sb = { ...SUPER[endian].parse(buf), endian } as SuperblockV4;
  if (sb.major !== 4 || sb.minor !== 0) return null;
  if (sb.blockSize < 4096 || sb.blockSize > 1 << 20 || 1 << sb.blockLog !== sb.blockSize) return null;
  if (!COMPRESSION_NAMES[sb.compression] || sb.inodes === 0 || sb.ids === 0 || sb.flags > 0x0fff) return null;
  const used = sb.bytesUsed;
  if (used < SUPER_SIZE || used >= 2 ** 48) return null;
  const inside = (v: number): boolean => v >= SUPER_SIZE && v < used;
  if (!inside(sb.inodeTable) || !inside(sb.directoryTable) || !inside(sb.idTable)) return null;
  if (sb.inodeTable >= sb.directoryTable || sb.directoryTable > sb.idTable) return null;
  if (sb.fragments > 0 && !inside(sb.fragmentTable)) return null;
  if (sb.lookupTable !== ABSENT && !inside(sb.lookupTable)) return null;
  if (sb.xattrTable !== ABSENT && !inside(sb.xattrTable)) return null;
  return rootInodeFits(sb) ? sb : null;
}

/** The positions of the tables after the directory table, and of their first blocks: one of them ends it. */
async function tablesAfterDirectories(src: MetadataSource, sb: SuperblockV4): Promise<number[]> {
  const candidates = [sb.bytesUsed, sb.idTable, sb.fragmentTable, sb.lookupTable, sb.xattrTable];
  candidates.push(await readPointer64(src, sb.idTable));
  if (sb.fragments > 0) candidates.push(await readPointer64(src, sb.fragmentTable));
  if (sb.lookupTable !== ABSENT) candidates.push(await readPointer64(src, sb.lookupTable));
  return candidates;
}

async function openTables(src: MetadataSource, sb: SuperblockV4): Promise<SquashTables> {
  const e = sb.endian;
  const start = src.base;
  const inodes = await MetadataTable.load(src, start + sb.inodeTable, start + sb.directoryTable);
  const dirs = await MetadataTable.load(src, start + sb.directoryTable, start + directoryTableEnd(sb, await tablesAfterDirectories(src, sb)));
  const idData = await readIndexedTable(src, start + sb.idTable, sb.ids * 4);
  const ids = Array.from({ length: sb.ids }, (_, i) => (e === 'le' ? idData.readUInt32LE(i * 4) : idData.readUInt32BE(i * 4)));
  const fragment = await loadFragmentTable(src, start + sb.fragmentTable, sb.fragments);
  const id = (i: number): number => {
    const v = ids[i];
    if (v === undefined) throw new FormatError(`id index ${i} outside the id table (${ids.length} ids)`);
    return v;
  };

  const readInode = (ref: InodeRef): SquashInode => {
    const c = inodes.cursor(ref.block, ref.offset);
    const h = INODE[e].parse(c.take(16));
    const common = { mode: h.mode, uid: id(h.uid), gid: id(h.gid), mtime: h.mtime };
    switch (h.type) {
      case 1:
      case 8: {
        const d = h.type === 1 ? DIR[e].parse(c.take(16)) : LDIR[e].parse(c.take(24));
        return { kind: 'dir', dirBlock: d.startBlock, dirOffset: d.offset, listingSize: Math.max(0, d.fileSize - 3), ...common };
      }
      case 2:
      case 9: {
        const r = h.type === 2 ? REG[e].parse(c.take(16)) : LREG[e].parse(c.take(40));
        return fileInode(r, (n) => c.take(n), { endian: e, blockSize: sb.blockSize, bytesUsed: sb.bytesUsed }, ref, common);
      }
      case 3:
      case 10: {
        const s = SYMLINK[e].parse(c.take(8));
        if (s.size > 65536) throw new FormatError(`inode ${ref.block}:${ref.offset}: symlink of ${s.size} bytes`);
        return { kind: 'symlink', target: c.take(s.size).toString('utf8'), ...common };
      }
      case 4:
      case 5:
      case 11:
      case 12:
        return { kind: 'device', rdev: DEV[e].parse(c.take(8)).rdev, ...common };
      case 6:
      case 13:
        return { kind: 'fifo', ...common };
      case 7:
      case 14:
        return { kind: 'socket', ...common };
      default:
        throw new FormatError(`inode ${ref.block}:${ref.offset} has unknown type ${h.type}`);
    }
  };

  const dirLayout: DirListingLayout = { headerSize: 12, header: (raw) => DIR_HEADER[e].parse(raw), entrySize: 8, entry: (raw) => DIR_ENTRY[e].parse(raw) };
  return { readInode, readDir: directoryReader(dirs, dirLayout), fragment };
}

const V4: SquashVersion<SuperblockV4> = {
  name: 'SquashFS 4',
  superSize: SUPER_SIZE,
  parse: parseSuperblockV4,
  meta: (sb) => ({
    version: '4.0',
    endian: sb.endian,
    compression: COMPRESSION_NAMES[sb.compression],
    blockSize: sb.blockSize,
    inodes: sb.inodes,
    mkfsTime: sb.mkfsTime,
  }),
  decoder: (sb) => decoderFor(sb.compression)!,
  open: openTables,
};

export const squashfsV4Handler: Handler = {
  id: 'squashfs-v4',
  kind: 'filesystem',
  encoded: true, // data and metadata blocks are compressed; the files hold the content
  doc: {
    title: 'SquashFS 4.0 (little- and big-endian; gzip, lzma incl. vendor variants, lzo, xz, lz4, zstd)',
    references: [
      'Linux fs/squashfs/squashfs_fs.h',
      'squashfs-tools (plougher/squashfs-tools) unsquashfs-4.c',
      'sasquatch (devttys0/sasquatch) for vendor LZMA block layouts',
      'unblob handlers/filesystem/squashfs.py',
    ],
    limitations: ['Extended attributes are not extracted.', 'The chunk ends at bytes_used; the 4 KiB padding after it is left as a gap.'],
  },
  magics: [{ bytes: MAGIC_LE }, { bytes: MAGIC_BE }],
  confidence: 80,
  ...squashfsHandlerParts(V4),
};

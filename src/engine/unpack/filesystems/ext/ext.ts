// ext2, ext3 and ext4 filesystems: the superblock gives the chunk size (blocks × block size); extraction walks
// the directory tree from the root inode, reading files through extent trees or block maps.
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import {
  blockMapRuns,
  extentRuns,
  FL_EXTENTS,
  FL_INLINE_DATA,
  INCOMPAT_64BIT,
  INCOMPAT_COMPRESSION,
  INCOMPAT_EXTENTS,
  INCOMPAT_FILETYPE,
  INCOMPAT_JOURNAL_DEV,
  INCOMPAT_META_BG,
  COMPAT_HAS_JOURNAL,
  inlineDataTail,
  parseGeometry,
  parseInode,
  RO_COMPAT_SPARSE_SUPER,
  SUPERBLOCK_OFFSET,
  Superblock,
  type ExtGeometry,
  type Inode,
  type Runs,
} from './inode.js';
import { replayJournal, unescape, type JournalCopy } from './journal.js';
import { decodeDev, sinkSpecialInode } from '../dev-t.js';

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const ROOT_INO = 2;
/** Bytes handed to the sink per write when streaming a file. */
const STREAM_CHUNK = 1024 * 1024;
const MAX_DIR_BYTES = 64 * 1024 * 1024;

/** Access to one ext filesystem inside a reader, clamped to what the file actually holds. */
class ExtVolume {
  private readonly descriptors = new Map<number, Buffer>();

  constructor(
    readonly reader: Reader,
    readonly base: number,
    readonly geo: ExtGeometry,
    /** End of readable bytes (chunk end, or file end for a truncated image). */
    readonly limit: number,
  ) {}

  /** Committed journal blocks not yet written home (see journal.ts): reads see them instead. */
  overlay = new Map<number, JournalCopy>();

  /** Reads a block as it is on disk, ignoring the journal. */
  rawBlock = async (block: number): Promise<Buffer> => {
    if (block >= this.geo.blocksCount) throw new FormatError(`block ${block} is past the filesystem's ${this.geo.blocksCount} blocks`);
    const at = this.base + block * this.geo.blockSize;
    if (at + this.geo.blockSize > this.limit) throw new FormatError(`block ${block} is past the end of the truncated image`);
    return this.reader.readExact(at, this.geo.blockSize);
  };

  readBlock = async (block: number): Promise<Buffer> => {
    const copy = this.overlay.get(block);
    return copy ? unescape(await this.rawBlock(copy.physical), copy) : this.rawBlock(block);
  };

  /** Replaces the blocks of `data` (which starts at disk block `first`) that the journal holds newer copies of. */
  private async patch(data: Buffer, first: number): Promise<Buffer> {
    if (this.overlay.size === 0) return data;
    const bs = this.geo.blockSize;
    let out = data;
    for (let i = 0; i * bs < data.length; i++) {
      if (!this.overlay.has(first + i)) continue;
      if (out === data) out = Buffer.from(data);
      (await this.readBlock(first + i)).copy(out, i * bs, 0, Math.min(bs, data.length - i * bs));
    }
    return out;
  }

  /** Whether group `g` holds a superblock backup (and so its descriptor copy) under sparse_super. */
  private hasSuper(g: number): boolean {
    if (g <= 1 || (this.geo.sb.featureRoCompat & RO_COMPAT_SPARSE_SUPER) === 0) return true;
    for (const p of [3, 5, 7]) {
      let n = p;
      while (n < g) n *= p;
      if (n === g) return true;
    }
    return false;
  }

  private async descriptor(group: number): Promise<Buffer> {
    const { blockSize, descSize, sb } = this.geo;
    const perBlock = blockSize / descSize;
    const index = Math.floor(group / perBlock);
    // The descriptors follow the block holding the superblock (block 1 with 1 KiB blocks, else block 0).
    const superBlock = blockSize === 1024 ? 1 : 0;
    let block = superBlock + 1 + index;
    if ((sb.featureIncompat & INCOMPAT_META_BG) !== 0 && index >= sb.firstMetaBg) {
      // meta_bg: each meta group keeps its descriptor block in its own first group.
      const first = index * perBlock;
      let offset = this.hasSuper(first) ? 1 : 0;
      if (blockSize === 1024 && index === 0 && sb.firstDataBlock === 0) offset++; // bigalloc with 1 KiB blocks
      block = sb.firstDataBlock + first * sb.blocksPerGroup + offset;
    }
    let table = this.descriptors.get(block);
    if (!table) {
      table = await this.readBlock(block);
      this.descriptors.set(block, table);
    }
    return table.subarray((group % perBlock) * descSize, (group % perBlock + 1) * descSize);
  }

  async inode(ino: number): Promise<Inode> {
    const { sb, inodeSize, is64 } = this.geo;
    if (ino < 1 || ino > sb.inodesCount) throw new FormatError(`inode ${ino} out of range 1..${sb.inodesCount}`);
    const group = Math.floor((ino - 1) / sb.inodesPerGroup);
    const desc = await this.descriptor(group);
    const table = desc.readUInt32LE(8) + (is64 && desc.length >= 0x2c ? desc.readUInt32LE(0x28) * 2 ** 32 : 0);
    const byteOffset = ((ino - 1) % sb.inodesPerGroup) * inodeSize;
    const block = table + Math.floor(byteOffset / this.geo.blockSize);
    const raw = await this.readBlock(block);
    const within = byteOffset % this.geo.blockSize;
    return parseInode(ino, raw.subarray(within, within + inodeSize));
  }

  async runs(inode: Inode): Promise<Runs> {
    const maxLogical = Math.ceil(inode.size / this.geo.blockSize);
    if (inode.flags & FL_EXTENTS) return extentRuns(inode.block, this.readBlock, maxLogical);
    return blockMapRuns(inode.block, this.readBlock, this.geo.blockSize, maxLogical, this.geo.blocksCount);
  }

  /** Whole content of a small object (directory, slow symlink); bounded. */
  async contents(inode: Inode, max: number): Promise<Buffer> {
    if (inode.size > max) throw new FormatError(`inode ${inode.ino}: size ${inode.size} exceeds ${max} bytes`);
    if (inode.flags & FL_INLINE_DATA) return Buffer.concat([inode.block, inlineDataTail(inode)]).subarray(0, inode.size);
    const parts: Buffer[] = [];
    for await (const part of this.stream(inode, await this.runs(inode))) parts.push(part);
    return Buffer.concat(parts);
  }

  /** The file's bytes in order, holes as zeros, in pieces of at most STREAM_CHUNK. */
  async *stream(inode: Inode, runs: Runs): AsyncGenerator<Buffer> {
    const bs = this.geo.blockSize;
    let pos = 0;
    const zeros = async function* (n: number) {
      while (n > 0) {
        const k = Math.min(n, STREAM_CHUNK);
        yield Buffer.alloc(k);
        n -= k;
      }
    };
    for (const run of runs) {
      const start = run.logical * bs;
      if (start >= inode.size) break;
      if (start > pos) yield* zeros(start - pos);
      const end = Math.min(inode.size, (run.logical + run.length) * bs);
      if (run.zero) yield* zeros(end - start);
      else {
        if (run.physical + run.length > this.geo.blocksCount) throw new FormatError(`inode ${inode.ino}: extent points past the filesystem`);
        for (let at = start; at < end; at += STREAM_CHUNK) {
          const n = Math.min(STREAM_CHUNK, end - at);
          const disk = this.base + run.physical * bs + (at - start);
          if (disk + n > this.limit) throw new FormatError(`inode ${inode.ino}: data past the end of the truncated image`);
          yield await this.patch(await this.reader.readExact(disk, n), run.physical + (at - start) / bs);
        }
      }
      pos = end;
    }
    if (pos < inode.size) yield* zeros(inode.size - pos);
  }
}

interface DirEntry {
  ino: number;
  name: string;
}

function parseDirectory(data: Buffer, withFileType: boolean, skip: number, blockSize = data.length): DirEntry[] {
  const out: DirEntry[] = [];
  let at = skip;
  while (at + 8 <= data.length) {
    const ino = data.readUInt32LE(at);
    const recLen = data.readUInt16LE(at + 4);
    const nameLen = withFileType ? data[at + 6]! : data.readUInt16LE(at + 6);
    if (recLen < 8 || recLen % 4 !== 0 || at + recLen > data.length || 8 + nameLen > recLen) {
      // A corrupt record: skip to the next block boundary, where records start afresh.
      at = (Math.floor(at / blockSize) + 1) * blockSize;
      continue;
    }
    if (ino !== 0 && nameLen > 0) {
      const name = data.subarray(at + 8, at + 8 + nameLen).toString('utf8');
      if (name !== '.' && name !== '..') out.push({ ino, name });
    }
    at += recLen;
  }
  return out;
}

/** Inline directories hold the parent inode number in their first 4 bytes, then ordinary records. */
function inlineDirectory(inode: Inode, withFileType: boolean): DirEntry[] {
  return [...parseDirectory(inode.block, withFileType, 4), ...parseDirectory(inlineDataTail(inode), withFileType, 0)];
}

function version(geo: ExtGeometry): 'ext2' | 'ext3' | 'ext4' {
  const { featureIncompat, featureCompat } = geo.sb;
  if (featureIncompat & (INCOMPAT_EXTENTS | INCOMPAT_64BIT | 0x200 /* flex_bg */)) return 'ext4';
  if (featureCompat & COMPAT_HAS_JOURNAL) return 'ext3';
  return 'ext2';
}

async function readGeometry(reader: Reader, start: number): Promise<ExtGeometry | null> {
  const raw = await reader.read(start + SUPERBLOCK_OFFSET, Superblock.size);
  if (raw.length < Superblock.size) return null;
  return parseGeometry(raw);
}

async function extract(reader: Reader, chunk: ChunkInfo, sink: Sink): Promise<void> {
  const geo = await readGeometry(reader, chunk.start);
  if (!geo) throw new FormatError('ext superblock no longer valid');
  const vol = new ExtVolume(reader, chunk.start, geo, Math.min(chunk.end, reader.size));
  if (chunk.meta?.truncated) sink.problem('error', `ext image truncated: ${chunk.meta.truncated}`, chunk.start);
  await replay(vol, sink);
  const withFileType = (geo.sb.featureIncompat & INCOMPAT_FILETYPE) !== 0;
  const firstPath = new Map<number, string>();
  const visitedDirs = new Set<number>([ROOT_INO]);
  const root = await vol.inode(ROOT_INO);
  if ((root.mode & S_IFMT) !== S_IFDIR) throw new FormatError('root inode is not a directory');
  const stack: Array<{ inode: Inode; path: string }> = [{ inode: root, path: '' }];
  while (stack.length > 0) {
    if (sink.signal.aborted) throw sink.signal.reason;
    const { inode: dir, path: dirPath } = stack.pop()!;
    let entries: DirEntry[];
    try {
      entries = dir.flags & FL_INLINE_DATA ? inlineDirectory(dir, withFileType) : parseDirectory(await vol.contents(dir, MAX_DIR_BYTES), withFileType, 0, geo.blockSize);
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      sink.problem('error', `directory ${dirPath || '/'}: ${error.message}`);
      continue;
    }
    for (const entry of entries) {
      if (entry.name.includes('/')) {
        sink.problem('error', `directory ${dirPath || '/'}: entry name with a slash ${JSON.stringify(entry.name)}`);
        continue;
      }
      const path = dirPath ? `${dirPath}/${entry.name}` : entry.name;
      try {
        const inode = await vol.inode(entry.ino);
        const meta = { mode: inode.mode & 0o7777, uid: inode.uid, gid: inode.gid, mtime: inode.mtime };
        const type = inode.mode & S_IFMT;
        if (type === S_IFDIR) {
          if (visitedDirs.has(inode.ino)) {
            sink.problem('error', `directory loop: ${path} is inode ${inode.ino} again`);
            continue;
          }
          visitedDirs.add(inode.ino);
          await sink.dir(path, meta);
          stack.push({ inode, path });
        } else if (type === S_IFREG) {
          const seen = firstPath.get(inode.ino);
          if (seen !== undefined) {
            sink.hardlink(path, seen, meta);
            continue;
          }
          firstPath.set(inode.ino, path);
          await writeFile(vol, inode, path, meta, sink);
        } else if (type === S_IFLNK) {
          sink.symlink(path, await linkTarget(vol, inode), meta);
        } else if (!(await sinkSpecialInode(sink, path, inode.mode, meta, () => deviceNumber(inode.block)))) {
          sink.problem('error', `${path}: inode ${inode.ino} has unknown type ${type.toString(8)}`);
        }
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        sink.problem('error', `${path}: ${error.message}`);
      }
    }
  }
}

/** Replays an internal journal left unrecovered; a broken journal is reported and the disk state used. */
async function replay(vol: ExtVolume, sink: Sink): Promise<void> {
  const { sb } = vol.geo;
  if (!(sb.featureCompat & COMPAT_HAS_JOURNAL) || sb.journalInum === 0) return;
  try {
    const journal = await vol.inode(sb.journalInum);
    const runs = await vol.runs(journal);
    const { overlay, transactions } = await replayJournal(runs, vol.rawBlock, vol.geo.blockSize);
    if (transactions === 0) return;
    vol.overlay = overlay;
    sink.problem('warning', `ext journal replayed: ${transactions} committed transactions, ${overlay.size} blocks`, vol.base);
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    sink.problem('error', `ext journal not replayed: ${error.message}`, vol.base);
  }
}

async function writeFile(vol: ExtVolume, inode: Inode, path: string, meta: object, sink: Sink): Promise<void> {
  if (inode.flags & FL_INLINE_DATA) {
    await sink.file(path, Buffer.concat([inode.block, inlineDataTail(inode)]).subarray(0, inode.size), meta);
    return;
  }
  const runs = await vol.runs(inode);
  // A lying size would make us write gigabytes of hole: past the last mapped block, keep at most the image's size.
  const bs = vol.geo.blockSize;
  const mappedEnd = runs.length ? (runs[runs.length - 1]!.logical + runs[runs.length - 1]!.length) * bs : 0;
  let target = inode;
  if (inode.size > mappedEnd && inode.size - mappedEnd > vol.geo.blocksCount * bs) {
    sink.problem('error', `${path}: size ${inode.size} is far beyond its data; cut to ${mappedEnd}`);
    target = { ...inode, size: mappedEnd };
  }
  await sink.file(path, vol.stream(target, runs), meta);
}

async function linkTarget(vol: ExtVolume, inode: Inode): Promise<string> {
  // Fast symlinks keep their target in i_block; slow ones in a data block (or inline data). As in the kernel's
  // ext4_inode_is_fast_symlink: no blocks allocated besides an extended-attribute block.
  const eaSectors = inode.fileAcl ? vol.geo.blockSize / 512 : 0;
  const fast = !(inode.flags & (FL_EXTENTS | FL_INLINE_DATA)) && inode.size < 60 && inode.sectors - eaSectors <= 0;
  const raw = fast ? inode.block.subarray(0, inode.size) : await vol.contents(inode, 4096);
  return raw.toString('utf8');
}

function deviceNumber(block: Buffer): { major: number; minor: number } {
  const old = block.readUInt32LE(0);
  if (old !== 0) return { major: (old >> 8) & 0xff, minor: old & 0xff };
  return decodeDev(block.readUInt32LE(4));
}

export const extHandler: Handler = {
  id: 'ext',
  kind: 'filesystem',
  doc: {
    title: 'ext2 / ext3 / ext4 filesystem',
    references: [
      'Linux Documentation/filesystems/ext4/ (on-disk layout)',
      'Linux fs/ext4/ext4.h, fs/ext4/extents.c, fs/ext4/inline.c',
      'Linux include/linux/jbd2.h, fs/jbd2/recovery.c',
    ],
    limitations: [
      'Extended attributes (other than inline data), ACLs and encrypted or casefolded names are not extracted',
      'Journal replay covers internal jbd2 journals (descriptor, commit and revoke blocks); fast-commit blocks and external journal devices are not read',
    ],
  },
  magics: [{ bytes: Buffer.from([0x53, 0xef]), offset: SUPERBLOCK_OFFSET + Superblock.offsetOf('magic') }],
  async chunk(reader, start) {
    const geo = await readGeometry(reader, start);
    if (!geo) return null;
    const { sb } = geo;
    if (sb.featureIncompat & INCOMPAT_JOURNAL_DEV) throw new FormatError('external journal device, not a filesystem');
    if (sb.featureIncompat & INCOMPAT_COMPRESSION) throw new FormatError('ext2 compression feature is not supported');
    const size = geo.blocksCount * geo.blockSize;
    const end = start + size;
    // A chunk this large must not be claimed by a lucky 2-byte magic: the root inode, when readable, is a directory.
    try {
      const root = await new ExtVolume(reader, start, geo, Math.min(end, reader.size)).inode(ROOT_INO);
      if ((root.mode & S_IFMT) !== S_IFDIR) return null;
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
    }
    const meta: Record<string, unknown> = {
      version: version(geo),
      blockSize: geo.blockSize,
      blocks: geo.blocksCount,
      label: sb.volumeName,
    };
    if (end > reader.size) {
      // Keep what there is: the extractor reads what lies inside the file and reports the rest.
      meta.truncated = `${size} bytes declared, ${reader.size - start} present`;
      return { start, end: reader.size, meta };
    }
    return { start, end, meta };
  },
  extract,
};

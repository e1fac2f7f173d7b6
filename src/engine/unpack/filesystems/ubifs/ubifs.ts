// UBIFS: the superblock (LEB 0) gives the LEB size and count; the newest master node (LEB 1) points at the root
// of the on-flash index B-tree, whose leaves are the inode, data and directory-entry nodes of the last commit.
// Extraction walks the index, replays the journal written since (journal.ts), then rebuilds the tree from
// the root inode. Written from Linux fs/ubifs (ubifs-media.h, tnc.c, replay.c).
import zlib from 'node:zlib';
import { FormatError } from '../../../format-error.js';
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import {
  COMPRESSION_NAMES,
  CommonHeader,
  DataNode,
  decompress,
  MasterNode,
  MST_LNUM,
  NODE,
  ROOT_INUM,
  SuperblockNode,
  UBIFS_BLOCK_SIZE,
  UBIFS_MAGIC,
  UbifsVolume,
} from './nodes.js';
import { allNodes, journalNodes, type ScannedNode } from './journal.js';
import { UbifsTree, type BlockRef, type InodeInfo } from './tree.js';
import { decodeDev, sinkSpecialInode } from '../dev-t.js';
import { xattrMeta } from '../xattrs.js';

const MAX_INDEX_LEVEL = 64;
const S_IFMT = 0o170000;

async function newestMaster(vol: UbifsVolume, minIo: number): Promise<ReturnType<typeof MasterNode.parse>> {
  let best: { sqnum: number; master: ReturnType<typeof MasterNode.parse> } | undefined;
  for (const lnum of [MST_LNUM, MST_LNUM + 1]) {
    let offs = 0;
    while (offs + CommonHeader.size <= vol.lebSize) {
      const head = await vol.reader.read(vol.base + lnum * vol.lebSize + offs, CommonHeader.size);
      if (head.length < CommonHeader.size || head.every((b) => b === 0xff)) break;
      try {
        const { header, node } = await vol.node(lnum, offs, NODE.MST);
        const master = MasterNode.parse(node);
        if (!best || header.sqnum > best.sqnum) best = { sqnum: header.sqnum, master };
        offs += Math.ceil(header.len / minIo) * minIo;
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        offs += minIo;
      }
    }
    if (best) return best.master;
  }
  throw new FormatError('UBIFS: no valid master node');
}

async function readSuperblock(reader: Reader, start: number) {
  const raw = await reader.read(start, 4096);
  if (raw.length < SuperblockNode.size) return null;
  const header = CommonHeader.parse(raw);
  if (header.magic !== UBIFS_MAGIC || header.nodeType !== NODE.SB || header.len > raw.length || header.len < SuperblockNode.size) return null;
  const sb = SuperblockNode.parse(raw);
  const power2 = (n: number) => n > 0 && (n & (n - 1)) === 0;
  if (!power2(sb.minIoSize) || sb.minIoSize > 64 * 1024 || sb.lebSize < 4096 || sb.lebSize > 4 * 1024 * 1024 || sb.lebSize % 8 !== 0) return null;
  if (sb.lebCnt < 4 || sb.keyFmt !== 0) return null;
  // A bad CRC with sane fields (checked above) is reported, not fatal: most of the node is padding.
  const crcOk = ~zlib.crc32(raw.subarray(8, header.len)) >>> 0 === header.crc;
  return Object.assign(sb, { crcOk });
}

/**
 * How many LEBs the image spans: mkfs.ubifs images (and UBI volumes) stop after the last used LEB, and the
 * free rest of a volume is 0xFF. Every used LEB outside the LPT area starts with a node, so the image ends
 * with the last of its (superblock-declared) LEBs that does; a damaged LEB start in between does not cut it.
 */
async function usedLebs(reader: Reader, start: number, sb: ReturnType<typeof SuperblockNode.parse>): Promise<number> {
  const lptEnd = 3 + sb.logLebs + sb.lptLebs;
  let used = Math.min(lptEnd, sb.lebCnt);
  for (let lnum = 0; lnum < sb.lebCnt; lnum++) {
    const at = start + lnum * sb.lebSize;
    if (at >= reader.size) break;
    if (lnum >= 3 + sb.logLebs && lnum < lptEnd) continue; // LPT nodes have no common header
    const head = await reader.read(at, CommonHeader.size);
    if (head.length >= 4 && head.readUInt32LE(0) === UBIFS_MAGIC) used = Math.max(used, lnum + 1);
  }
  return used;
}

async function applyAll(tree: UbifsTree, nodes: ScannedNode[]): Promise<void> {
  for (const n of nodes) {
    try {
      tree.apply(n.header.nodeType, n.node, n.lnum, n.offs);
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      tree.noteBad(`node at ${n.lnum}:${n.offs}: ${error.message}`);
    }
  }
}

async function extract(reader: Reader, chunk: ChunkInfo, sink: Sink): Promise<void> {
  const sb = await readSuperblock(reader, chunk.start);
  if (!sb) throw new FormatError('UBIFS superblock no longer valid');
  if (!sb.crcOk) sink.problem('error', 'UBIFS superblock CRC mismatch; its fields looked sane and were used', chunk.start);
  const lebCount = Math.floor((chunk.end - chunk.start) / sb.lebSize) + ((chunk.end - chunk.start) % sb.lebSize ? 1 : 0);
  const vol = new UbifsVolume(reader, chunk.start, sb.lebSize, lebCount, sb.flags);
  let tree = new UbifsTree(vol, sink);
  try {
    const master = await newestMaster(vol, Math.max(8, sb.minIoSize));
    await tree.walk(master.rootLnum, master.rootOffs, MAX_INDEX_LEVEL);
    // Then what was written after the last commit.
    await applyAll(tree, await journalNodes(vol, master.logLnum, sb.logLebs, sink));
    if (tree.badNodes > 20) sink.problem('error', `UBIFS: ${tree.badNodes} unreadable index entries in all`);
    if (!tree.inodes.has(ROOT_INUM) && !tree.dents.has(ROOT_INUM)) throw new FormatError('root directory missing from the index');
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    // A damaged master or index root loses the whole index: rebuild from every node still on flash instead.
    sink.problem('error', `UBIFS: ${error.message}; tree rebuilt from a scan of all nodes (deleted files may reappear)`);
    tree = new UbifsTree(vol, sink);
    await applyAll(tree, await allNodes(vol, 3 + sb.logLebs + sb.lptLebs + sb.orphLebs, sink));
    if (!tree.dents.has(ROOT_INUM)) throw new FormatError('UBIFS: no entry of the root directory found in any node');
  }
  if (!tree.inodes.has(ROOT_INUM)) sink.problem('error', 'UBIFS: root inode node missing; its entries are extracted anyway');
  await writeTree(vol, tree, sink);
}

async function writeTree(vol: UbifsVolume, tree: UbifsTree, sink: Sink): Promise<void> {
  const firstPath = new Map<number, string>();
  const visitedDirs = new Set<number>([ROOT_INUM]);
  const stack: Array<{ inum: number; path: string }> = [{ inum: ROOT_INUM, path: '' }];
  while (stack.length) {
    if (sink.signal.aborted) throw sink.signal.reason;
    const { inum: dirInum, path: dirPath } = stack.pop()!;
    for (const [name, inum] of tree.dents.get(dirInum) ?? []) {
      const dent = { name, inum };
      const path = dirPath ? `${dirPath}/${dent.name}` : dent.name;
      if (dent.name.includes('/') || dent.name === '.' || dent.name === '..') {
        sink.problem('error', `UBIFS: bad entry name ${JSON.stringify(dent.name)} in ${dirPath || '/'}`);
        continue;
      }
      const ino = tree.inodes.get(dent.inum);
      if (!ino) {
        sink.problem('error', `UBIFS: ${path}: inode ${dent.inum} missing`);
        continue;
      }
      const xattrs = xattrMeta(tree.xattrValues(dent.inum, path));
      const meta = { mode: ino.mode & 0o7777, uid: ino.uid, gid: ino.gid, mtime: ino.mtime, ...(xattrs && { meta: xattrs }) };
      try {
        switch (ino.mode & S_IFMT) {
          case 0o040000:
            if (visitedDirs.has(dent.inum)) {
              sink.problem('error', `UBIFS: directory loop at ${path}`);
              continue;
            }
            visitedDirs.add(dent.inum);
            await sink.dir(path, meta);
            stack.push({ inum: dent.inum, path });
            break;
          case 0o100000: {
            const seen = firstPath.get(dent.inum);
            if (seen !== undefined) sink.hardlink(path, seen, meta);
            else {
              firstPath.set(dent.inum, path);
              await sink.file(path, fileContent(vol, ino, [...(tree.blocks.get(dent.inum)?.values() ?? [])], path, sink), meta);
            }
            break;
          }
          case 0o120000:
            sink.symlink(path, ino.data.toString('utf8'), meta);
            break;
          default: {
            const device = () => decodeDev(ino.data.length >= 4 ? ino.data.readUInt32LE(0) : 0);
            if (!(await sinkSpecialInode(sink, path, ino.mode, meta, device))) sink.problem('error', `UBIFS: ${path}: unknown file type ${ino.mode.toString(8)}`);
          }
        }
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        sink.problem('error', `UBIFS: ${path}: ${error.message}`);
      }
    }
  }
}

/** A file's blocks in order, holes as zeros, cut to the inode size. */
async function* fileContent(vol: UbifsVolume, ino: InodeInfo, refs: BlockRef[], path: string, sink: Sink): AsyncGenerator<Buffer> {
  const sorted = [...refs].sort((a, b) => a.block - b.block);
  let size = ino.size;
  const mappedEnd = sorted.length ? (sorted[sorted.length - 1]!.block + 1) * UBIFS_BLOCK_SIZE : 0;
  if (size > mappedEnd + vol.lebSize * vol.lebCount) {
    sink.problem('error', `UBIFS: ${path}: size ${size} far beyond its data; cut to ${mappedEnd}`);
    size = mappedEnd;
  }
  let pos = 0;
  for (const ref of sorted) {
    const at = ref.block * UBIFS_BLOCK_SIZE;
    if (at >= size) break;
    if (at < pos) continue; // duplicate key
    while (pos < at) {
      const n = Math.min(at - pos, 1024 * 1024);
      yield Buffer.alloc(n);
      pos += n;
    }
    let block: Buffer;
    try {
      const { node } = await vol.node(ref.lnum, ref.offs, NODE.DATA);
      const data = DataNode.parse(node);
      block = await decompress(data.comprType, node.subarray(DataNode.size), data.size);
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      sink.problem('error', `UBIFS: ${path}: block ${ref.block}: ${error.message}; zero-filled`);
      block = Buffer.alloc(0);
    }
    const want = Math.min(UBIFS_BLOCK_SIZE, size - at);
    yield block.length >= want ? block.subarray(0, want) : Buffer.concat([block, Buffer.alloc(want - block.length)]);
    pos = at + want;
  }
  while (pos < size) {
    const n = Math.min(size - pos, 1024 * 1024);
    yield Buffer.alloc(n);
    pos += n;
  }
}

export const ubifsHandler: Handler = {
  id: 'ubifs',
  kind: 'filesystem',
  doc: {
    title: 'UBIFS filesystem image (bare, or a volume extracted from UBI)',
    references: ['Linux fs/ubifs/ubifs-media.h', 'Linux fs/ubifs/tnc.c, master.c, replay.c', 'ubi_reader'],
    limitations: [
      'Journal replay follows the log and buds but does not check orphans or recover half-written buds beyond the first bad node',
      'Authenticated (hashed-index) and encrypted UBIFS are not supported',
      'Extended attributes are kept in meta.xattrs (text, or base64: + base64); those of device nodes are dropped with their meta',
    ],
  },
  magics: [{ bytes: Buffer.from([0x31, 0x18, 0x10, 0x06]) }],
  async chunk(reader, start) {
    const sb = await readSuperblock(reader, start);
    if (!sb) return null;
    const used = await usedLebs(reader, start, sb);
    const meta: Record<string, unknown> = {
      lebSize: sb.lebSize,
      lebCount: sb.lebCnt,
      minIoSize: sb.minIoSize,
      compression: COMPRESSION_NAMES[sb.defaultCompr] ?? sb.defaultCompr,
    };
    return { start, end: Math.min(start + used * sb.lebSize, reader.size), meta };
  },
  extract,
};

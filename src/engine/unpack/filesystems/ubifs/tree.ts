// The live UBIFS tree: the leaves of the on-flash index (the state at the last commit), then the journal's newer
// nodes applied over it in sequence-number order, the way the kernel's replay (fs/ubifs/replay.c) updates its
// in-memory index: inode nodes replace inodes (or delete them when their link count is 0), data nodes replace
// blocks, directory entries add names (or remove them when they point at inode 0), truncation nodes drop blocks.
// Extended-attribute entries work like directory entries under their host inode; the xattr inode they name holds
// the value as its data.
import { FormatError } from '../../../format-error.js';
import type { Sink } from '../../handler.js';
import { CommonHeader, DentNode, InodeNode, KEY, NODE, parseKey, UBIFS_BLOCK_SIZE, UbifsVolume } from './nodes.js';

export interface InodeInfo {
  mode: number;
  uid: number;
  gid: number;
  size: number;
  mtime: number;
  data: Buffer;
}
export interface BlockRef {
  block: number;
  lnum: number;
  offs: number;
}

export class UbifsTree {
  readonly inodes = new Map<number, InodeInfo>();
  /** parent inode → entry name → target inode */
  readonly dents = new Map<number, Map<string, number>>();
  /** inode → block number → where its data node is */
  readonly blocks = new Map<number, Map<number, BlockRef>>();
  /** host inode → attribute name → xattr inode (whose data is the value) */
  readonly xattrs = new Map<number, Map<string, number>>();
  private readonly visited = new Set<string>();
  badNodes = 0;

  constructor(
    private readonly vol: UbifsVolume,
    private readonly sink: Sink,
  ) {}

  /** Walks the index B-tree from (lnum, offs); levels must strictly decrease, so loops and cycles end. */
  async walk(lnum: number, offs: number, maxLevel: number): Promise<void> {
    const address = `${lnum}:${offs}`;
    if (this.visited.has(address)) throw new FormatError(`index loop at ${address}`);
    this.visited.add(address);
    if (this.sink.signal.aborted) throw this.sink.signal.reason;
    const { node } = await this.vol.node(lnum, offs, NODE.IDX);
    const childCount = node.readUInt16LE(24);
    const level = node.readUInt16LE(26);
    if (level > maxLevel) throw new FormatError(`index node at ${address} has level ${level} under a level ${maxLevel + 1} parent`);
    if (28 + childCount * this.vol.branchSize > node.length) throw new FormatError(`index node at ${address} overflows`);
    for (let i = 0; i < childCount; i++) {
      const at = 28 + i * this.vol.branchSize;
      const childLnum = node.readUInt32LE(at);
      const childOffs = node.readUInt32LE(at + 4);
      try {
        if (level > 0) await this.walk(childLnum, childOffs, level - 1);
        else {
          const leaf = await this.vol.node(childLnum, childOffs);
          this.apply(leaf.header.nodeType, leaf.node, childLnum, childOffs);
        }
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        this.noteBad(error.message);
      }
    }
  }

  noteBad(message: string): void {
    this.badNodes++;
    if (this.badNodes <= 20) this.sink.problem('error', `UBIFS: ${message}`);
  }

  /** Applies one leaf node (from the index, or from the journal in sequence order). */
  apply(type: number, node: Buffer, lnum: number, offs: number): void {
    if (type === NODE.INO) {
      const ino = InodeNode.parse(node);
      const inum = parseKey(ino.key).inum;
      if (ino.nlink === 0) {
        // The inode was deleted: everything keyed by it goes.
        this.inodes.delete(inum);
        this.blocks.delete(inum);
        this.dents.delete(inum);
        this.xattrs.delete(inum);
        return;
      }
      const dataLen = Math.min(ino.dataLen, node.length - InodeNode.size);
      this.inodes.set(inum, {
        mode: ino.mode,
        uid: ino.uid,
        gid: ino.gid,
        size: ino.size,
        mtime: ino.mtimeSec,
        data: node.subarray(InodeNode.size, InodeNode.size + dataLen),
      });
    } else if (type === NODE.DENT || type === NODE.XENT) {
      const dent = DentNode.parse(node);
      const parent = parseKey(dent.key).inum;
      const name = node.subarray(DentNode.size, DentNode.size + Math.min(dent.nlen, node.length - DentNode.size)).toString('utf8');
      const names = type === NODE.DENT ? this.dents : this.xattrs;
      let dir = names.get(parent);
      if (!dir) names.set(parent, (dir = new Map()));
      if (dent.inum === 0) dir.delete(name);
      else dir.set(name, Number(dent.inum));
    } else if (type === NODE.DATA) {
      const key = parseKey(node, CommonHeader.size);
      if (key.type !== KEY.DATA) throw new FormatError(`data node at ${lnum}:${offs} has a key of type ${key.type}`);
      let blocks = this.blocks.get(key.inum);
      if (!blocks) this.blocks.set(key.inum, (blocks = new Map()));
      blocks.set(key.value, { block: key.value, lnum, offs });
    } else if (type === NODE.TRUN) {
      if (node.length < 56) throw new FormatError(`truncation node at ${lnum}:${offs} is too short`);
      const inum = node.readUInt32LE(24);
      const newSize = Number(node.readBigUInt64LE(48));
      const keep = Math.ceil(newSize / UBIFS_BLOCK_SIZE);
      const blocks = this.blocks.get(inum);
      if (blocks) for (const block of [...blocks.keys()]) if (block >= keep) blocks.delete(block);
    }
  }

  /** The host's extended attributes, name → value (an attribute whose xattr inode is missing is reported). */
  xattrValues(host: number, path: string): Array<[string, Buffer]> {
    const out: Array<[string, Buffer]> = [];
    for (const [name, inum] of this.xattrs.get(host) ?? []) {
      const value = this.inodes.get(inum);
      if (value) out.push([name, value.data]);
      else this.noteBad(`${path}: extended attribute ${name} names inode ${inum}, which is missing`);
    }
    return out;
  }
}

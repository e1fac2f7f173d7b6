// UBIFS on-flash node formats (little-endian): the common header, superblock, master, index, inode, data and
// directory-entry nodes, keys, and data-node decompression. Written from Linux fs/ubifs/ubifs-media.h.
import zlib from 'node:zlib';
import { inflateRaw, zstd } from '../../codecs/blocks.js';
import { lzo1xDecompress } from '../../codecs/lzo.js';
import { FormatError } from '../../../format-error.js';
import type { Reader } from '../../handler.js';
import { struct } from '../../struct.js';

export const UBIFS_MAGIC = 0x06101831;
export const UBIFS_BLOCK_SIZE = 4096;
export const NODE = { INO: 0, DATA: 1, DENT: 2, XENT: 3, TRUN: 4, PAD: 5, SB: 6, MST: 7, REF: 8, IDX: 9, CS: 10 } as const;
export const KEY = { INO: 0, DATA: 1, DENT: 2, XENT: 3 } as const;
export const ROOT_INUM = 1;
export const SB_LNUM = 0;
export const MST_LNUM = 1;
const SB_FLAG_AUTHENTICATION = 0x10;
const MAX_NODE = 8 * 1024 * 1024;

export const CommonHeader = struct('le', {
  magic: 'u32',
  crc: 'u32',
  sqnum: 'u64',
  len: 'u32',
  nodeType: 'u8',
  groupType: 'u8',
  padding: 'bytes[2]',
});
const CH = CommonHeader.size;

export const SuperblockNode = struct('le', {
  ch: `bytes[${CH}]`,
  padding: 'bytes[2]',
  keyHash: 'u8',
  keyFmt: 'u8',
  flags: 'u32',
  minIoSize: 'u32',
  lebSize: 'u32',
  lebCnt: 'u32',
  maxLebCnt: 'u32',
  maxBudBytes: 'u64',
  logLebs: 'u32',
  lptLebs: 'u32',
  orphLebs: 'u32',
  jheadCnt: 'u32',
  fanout: 'u32',
  lsaveCnt: 'u32',
  fmtVersion: 'u32',
  defaultCompr: 'u16',
});

export const MasterNode = struct('le', {
  ch: `bytes[${CH}]`,
  highestInum: 'u64',
  cmtNo: 'u64',
  flags: 'u32',
  logLnum: 'u32',
  rootLnum: 'u32',
  rootOffs: 'u32',
  rootLen: 'u32',
});

export const InodeNode = struct('le', {
  ch: `bytes[${CH}]`,
  key: 'bytes[16]',
  creatSqnum: 'u64',
  size: 'u64',
  atimeSec: 'u64',
  ctimeSec: 'u64',
  mtimeSec: 'u64',
  atimeNsec: 'u32',
  ctimeNsec: 'u32',
  mtimeNsec: 'u32',
  nlink: 'u32',
  uid: 'u32',
  gid: 'u32',
  mode: 'u32',
  flags: 'u32',
  dataLen: 'u32',
  xattrCnt: 'u32',
  xattrSize: 'u32',
  padding1: 'bytes[4]',
  xattrNames: 'u32',
  comprType: 'u16',
  padding2: 'bytes[26]',
});

export const DataNode = struct('le', { ch: `bytes[${CH}]`, key: 'bytes[16]', size: 'u32', comprType: 'u16', comprSize: 'u16' });
export const DentNode = struct('le', {
  ch: `bytes[${CH}]`,
  key: 'bytes[16]',
  inum: 'u64',
  padding1: 'u8',
  type: 'u8',
  nlen: 'u16',
  cookie: 'u32',
});

export type Header = ReturnType<typeof CommonHeader.parse>;

/** UBIFS CRC-32 over a node after its first 8 bytes (crc32_le seeded with 0xffffffff, not inverted). */
function nodeCrc(node: Buffer): number {
  return ~zlib.crc32(node.subarray(8)) >>> 0;
}

/** Addresses one UBIFS image (a UBI volume file or a bare mkfs.ubifs image) by LEB number and offset. */
export class UbifsVolume {
  readonly branchSize: number;
  constructor(
    readonly reader: Reader,
    readonly base: number,
    readonly lebSize: number,
    readonly lebCount: number,
    sbFlags: number,
  ) {
    if (sbFlags & SB_FLAG_AUTHENTICATION) throw new FormatError('authenticated UBIFS (hashed index) is not supported');
    this.branchSize = 12 + 8;
  }

  /** Reads and checks the node at (lnum, offs); `expected` is the node type the caller wants. */
  async node(lnum: number, offs: number, expected?: number): Promise<{ header: Header; node: Buffer }> {
    if (lnum >= this.lebCount || offs + CH > this.lebSize) throw new FormatError(`node address ${lnum}:${offs} out of range`);
    const at = this.base + lnum * this.lebSize + offs;
    const head = await this.reader.readExact(at, CH);
    const header = CommonHeader.parse(head);
    if (header.magic !== UBIFS_MAGIC) throw new FormatError(`no node at ${lnum}:${offs}`);
    if (header.len < CH || header.len > MAX_NODE || offs + header.len > this.lebSize) throw new FormatError(`node at ${lnum}:${offs} has a bad length ${header.len}`);
    if (expected !== undefined && header.nodeType !== expected) {
      throw new FormatError(`node at ${lnum}:${offs} has type ${header.nodeType}, expected ${expected}`);
    }
    const node = await this.reader.readExact(at, header.len);
    if (nodeCrc(node) !== header.crc) throw new FormatError(`node at ${lnum}:${offs} has a bad CRC`);
    return { header, node };
  }
}

export interface Key {
  inum: number;
  type: number;
  /** Block number for data keys, name hash for directory entries. */
  value: number;
}

export function parseKey(raw: Buffer, at = 0): Key {
  const word = raw.readUInt32LE(at + 4);
  return { inum: raw.readUInt32LE(at), type: word >>> 29, value: word & 0x1fffffff };
}

/** Decodes a data node's payload into at most one block. */
export async function decompress(type: number, data: Buffer, size: number): Promise<Buffer> {
  if (size > UBIFS_BLOCK_SIZE) throw new FormatError(`data node claims ${size} bytes, more than a block`);
  switch (type) {
    case 0:
      return data.subarray(0, size);
    case 1:
      return lzo1xDecompress(data, size);
    case 2:
      // The kernel's "deflate" crypto transform: raw deflate, no zlib header.
      return inflateRaw(data, size);
    case 3:
      return zstd(data, size);
    default:
      throw new FormatError(`unknown compression type ${type}`);
  }
}

export const COMPRESSION_NAMES = ['none', 'lzo', 'zlib', 'zstd'];

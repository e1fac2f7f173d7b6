// SquashFS metadata: the inode, directory, fragment, id and export tables are sequences of metadata blocks,
// each a 16-bit header (bit 15 set = stored uncompressed, low 15 bits = stored size) followed by at most 8 KiB
// of (compressed) data. References into a table are (block position relative to the table start, offset inside
// the decoded block); reads may run on into the following blocks.
import type { Reader } from '../../handler.js';
import { FormatError } from '../../../format-error.js';
import type { BlockDecoder } from './compressors.js';

export const METADATA_SIZE = 8192;
/** Cap on one decoded table: far above any real image, low enough that a hostile one cannot exhaust memory. */
const MAX_TABLE_BYTES = 256 * 1024 * 1024;
const DECODE_CONCURRENCY = 8;

export interface MetadataSource {
  reader: Reader;
  endian: 'le' | 'be';
  decoder: BlockDecoder;
  /** Absolute position of the superblock: table pointers stored in the image are relative to it. */
  base: number;
  /** Absolute end of the filesystem (start + bytes_used): nothing is read past it. */
  limit: number;
  /** SquashFS ≤ 3 with the CHECK flag: a marker byte follows each header. */
  checkByte?: boolean;
}

interface BlockHeader {
  /** Position of the header, relative to the table start. */
  at: number;
  dataStart: number;
  size: number;
  compressed: boolean;
  next: number;
}

async function readHeader(src: MetadataSource, tableStart: number, at: number): Promise<BlockHeader> {
  const abs = tableStart + at;
  if (abs + 2 > src.limit) throw new FormatError(`metadata block at ${abs} lies past the end of the filesystem`);
  const raw = await src.reader.readExact(abs, 2);
  const word = src.endian === 'le' ? raw.readUInt16LE(0) : raw.readUInt16BE(0);
  const size = word & 0x7fff;
  const dataStart = abs + 2 + (src.checkByte ? 1 : 0);
  if (size === 0 || size > METADATA_SIZE) throw new FormatError(`metadata block at ${abs} has invalid size ${size}`);
  if (dataStart + size > src.limit) throw new FormatError(`metadata block at ${abs} runs past the end of the filesystem`);
  return { at, dataStart, size, compressed: (word & 0x8000) === 0, next: dataStart + size - tableStart };
}

async function decodeBlock(src: MetadataSource, h: BlockHeader): Promise<Buffer> {
  const data = await src.reader.readExact(h.dataStart, h.size);
  if (!h.compressed) return data;
  return src.decoder.decode(data, METADATA_SIZE);
}

/** Runs `fn` over `items` with at most `limit` calls in flight (async codecs decode on the thread pool). */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let nextIndex = 0;
  const worker = async (): Promise<void> => {
    while (nextIndex < items.length) {
      const i = nextIndex++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * One table decoded in full (the inode and directory tables are read many times in random order). A block that
 * fails to decode is remembered with its reason; reading it throws, the rest stays readable.
 */
export class MetadataTable {
  private constructor(
    private readonly blocks: Map<number, { data?: Buffer; error?: string; next: number }>,
    readonly start: number,
  ) {}

  /** Loads every block of the table [start, end) (absolute positions). */
  static async load(src: MetadataSource, start: number, end: number): Promise<MetadataTable> {
    const headers: BlockHeader[] = [];
    let at = 0;
    let total = 0;
    let stop: { at: number; error: string } | undefined;
    while (start + at < end) {
      let h: BlockHeader;
      try {
        h = await readHeader(src, start, at);
      } catch (error) {
        // A bad header ends the table; what precedes it stays readable.
        if (!(error instanceof FormatError) || headers.length === 0) throw error;
        stop = { at, error: error.message };
        break;
      }
      headers.push(h);
      total += METADATA_SIZE;
      if (total > MAX_TABLE_BYTES) throw new FormatError(`metadata table at ${start} is larger than ${MAX_TABLE_BYTES} bytes`);
      at = h.next;
    }
    const decoded = await mapLimit(headers, DECODE_CONCURRENCY, async (h) => {
      try {
        return { data: await decodeBlock(src, h), next: h.next };
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        return { error: error.message, next: h.next };
      }
    });
    const blocks = new Map<number, { data?: Buffer; error?: string; next: number }>();
    headers.forEach((h, i) => blocks.set(h.at, decoded[i]!));
    if (stop) blocks.set(stop.at, { error: stop.error, next: -1 });
    return new MetadataTable(blocks, start);
  }

  /** `length` bytes starting at `offset` inside the block at relative position `block`, continuing across blocks. */
  read(block: number, offset: number, length: number): Buffer {
    const parts: Buffer[] = [];
    let got = 0;
    let at = block;
    let off = offset;
    while (got < length) {
      const entry = this.blocks.get(at);
      if (!entry) throw new FormatError(`no metadata block at ${this.start + at} (reference ${block}:${offset})`);
      if (!entry.data) throw new FormatError(`metadata block at ${this.start + at}: ${entry.error}`);
      if (off < entry.data.length) {
        const piece = entry.data.subarray(off, Math.min(entry.data.length, off + length - got));
        parts.push(piece);
        got += piece.length;
        off = 0;
      } else {
        off -= entry.data.length;
      }
      at = entry.next;
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, length);
  }

  /** A sequential reader starting at a reference. */
  cursor(block: number, offset: number): MetadataCursor {
    return new MetadataCursor(this, block, offset);
  }

  /** Moves (block, offset) forward by `n` bytes; used by cursors to stay on block boundaries. */
  advance(block: number, offset: number, n: number): [number, number] {
    let at = block;
    let off = offset + n;
    for (;;) {
      const entry = this.blocks.get(at);
      const size = entry?.data?.length;
      if (size === undefined || off < size) return [at, off];
      off -= size;
      at = entry!.next;
    }
  }
}

export class MetadataCursor {
  constructor(
    private readonly table: MetadataTable,
    public block: number,
    public offset: number,
  ) {}

  take(n: number): Buffer {
    const data = this.table.read(this.block, this.offset, n);
    [this.block, this.offset] = this.table.advance(this.block, this.offset, n);
    return data;
  }
}

/**
 * Reads an indexed table: `count` little/big-endian 64-bit pointers at `indexStart`, each to a metadata block;
 * returns the concatenated decoded blocks, at least `bytes` long.
 */
export async function readIndexedTable(src: MetadataSource, indexStart: number, bytes: number): Promise<Buffer> {
  const count = Math.ceil(bytes / METADATA_SIZE);
  if (count === 0) return Buffer.alloc(0);
  if (indexStart + count * 8 > src.limit) throw new FormatError(`table index at ${indexStart} runs past the end of the filesystem`);
  const index = await src.reader.readExact(indexStart, count * 8);
  const pointers: number[] = [];
  for (let i = 0; i < count; i++) {
    const p = Number(src.endian === 'le' ? index.readBigUInt64LE(i * 8) : index.readBigUInt64BE(i * 8));
    pointers.push(src.base + p);
  }
  return readPointedBlocks(src, pointers, bytes);
}

/** Decodes the metadata blocks at the given absolute positions. */
export async function readPointedBlocks(src: MetadataSource, pointers: number[], bytes: number): Promise<Buffer> {
  const parts = await mapLimit(pointers, DECODE_CONCURRENCY, async (p) => {
    const h = await readHeader(src, 0, p);
    return decodeBlock(src, h);
  });
  const data = Buffer.concat(parts);
  if (data.length < bytes) throw new FormatError(`table needs ${bytes} bytes, its blocks hold ${data.length}`);
  return data;
}

/** `count` 32-bit words at `at` (relative to the superblock): the raw uid and gid tables of SquashFS 1 to 3, 2.x's fragment index. */
export async function readWords(src: MetadataSource, at: number, count: number): Promise<number[]> {
  const raw = await src.reader.readExact(src.base + at, count * 4);
  return Array.from({ length: count }, (_, i) => (src.endian === 'le' ? raw.readUInt32LE(i * 4) : raw.readUInt32BE(i * 4)));
}

/** The 64-bit pointer at `at` (relative to the superblock): a table index's first entry, where its first block lies. */
export async function readPointer64(src: MetadataSource, at: number): Promise<number> {
  const raw = await src.reader.readExact(src.base + at, 8);
  return Number(src.endian === 'le' ? raw.readBigUInt64LE(0) : raw.readBigUInt64BE(0));
}

/** An inode's uid and gid from its indexes into the raw id tables (SquashFS 1 to 3; `sameAsUid` marks gid = uid). */
export function inodeOwner(ids: { uids: number[]; guids: number[]; sameAsUid: number }, uidIndex: number, guidIndex: number, where: string): { uid: number; gid: number } {
  const uid = ids.uids[uidIndex];
  if (uid === undefined) throw new FormatError(`${where}: uid index ${uidIndex} outside the uid table`);
  const gid = guidIndex === ids.sameAsUid ? uid : ids.guids[guidIndex];
  if (gid === undefined) throw new FormatError(`${where}: gid index ${guidIndex} outside the gid table`);
  return { uid, gid };
}

/** A packed 64-bit inode reference (block position << 16 | offset), as superblocks and directories store it. */
export function inodeRef(packed: number): { block: number; offset: number } {
  return { block: Math.floor(packed / 65536), offset: packed % 65536 };
}

/** One fragment table entry: where the fragment block starts and its size word (bit 24 set = stored uncompressed). */
export interface FragmentEntry {
  start: number;
  sizeWord: number;
}

/**
 * Loads the fragment table (`count` 16-byte entries, the same in SquashFS 3 and 4) through its index at
 * `indexStart`, and returns the lookup by fragment number.
 */
export async function loadFragmentTable(src: MetadataSource, indexStart: number, count: number): Promise<(index: number) => FragmentEntry> {
  const data = count > 0 ? await readIndexedTable(src, indexStart, count * 16) : Buffer.alloc(0);
  const le = src.endian === 'le';
  return (index) => {
    if (index >= count) throw new FormatError(`fragment ${index} outside the fragment table (${count})`);
    const at = index * 16;
    return { start: Number(le ? data.readBigUInt64LE(at) : data.readBigUInt64BE(at)), sizeWord: le ? data.readUInt32LE(at + 8) : data.readUInt32BE(at + 8) };
  };
}

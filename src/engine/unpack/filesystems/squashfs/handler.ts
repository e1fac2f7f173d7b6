// What the SquashFS handlers (1.x/2.x, 3.x, 4.0) share around their version-specific parts. A version gives its
// superblock size, a strict superblock parser (null, quietly, for anything that is not one), its chunk meta, its
// block decoder and an opener that builds the inode, directory and fragment readers; this module makes from them
// the handler's chunk() (the chunk ends at bytes_used) and extract() (the shared walk of extract.ts).
import type { ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { FormatError } from '../../../format-error.js';
import { LzmaFamilyDecoder, type BlockDecoder } from './compressors.js';
import { extractSquashfs, type SquashImage } from './extract.js';
import { METADATA_SIZE, inodeRef, readWords, type MetadataSource } from './metadata.js';

/** The superblock fields every version has (positions relative to the superblock). */
export interface SquashSuperblock {
  endian: 'le' | 'be';
  bytesUsed: number;
  blockSize: number;
  rootInode: number;
  inodeTable: number;
  directoryTable: number;
}

/** What a version's opener builds from a validated superblock. */
export type SquashTables = Pick<SquashImage, 'readInode' | 'readDir' | 'fragment'>;

export interface SquashVersion<S extends SquashSuperblock> {
  /** The versions read, as the error for an unparseable superblock names them ('SquashFS 1/2'). */
  name: string;
  /** Bytes parse() needs. */
  superSize: number;
  parse(buf: Buffer): S | null;
  /** The chunk's meta: version, byte order, block size and what else the version knows. */
  meta(sb: S): Record<string, unknown>;
  decoder(sb: S): BlockDecoder;
  /** SquashFS ≤ 3 with the CHECK flag: a marker byte follows each metadata block header. */
  checkByte?(sb: S): boolean;
  /** Builds the readers; `src` reads metadata of the image (its base is the superblock's position). */
  open(src: MetadataSource, sb: S): Promise<SquashTables>;
}

/** The bit of a data block's or fragment's size word that marks it stored uncompressed (all versions). */
export const UNCOMPRESSED = 1 << 24;

/** Reads and validates the superblock at `start`, then opens the image for extraction. */
export async function openSquashfs<S extends SquashSuperblock>(version: SquashVersion<S>, reader: Reader, start: number): Promise<SquashImage> {
  const sb = version.parse(await reader.readExact(start, version.superSize));
  if (!sb) throw new FormatError(`not a ${version.name} superblock`);
  const limit = start + sb.bytesUsed;
  if (limit > reader.size) throw new FormatError(`truncated: SquashFS needs ${sb.bytesUsed} bytes`);
  const decoder = version.decoder(sb);
  const src: MetadataSource = { reader, endian: sb.endian, decoder, base: start, limit, checkByte: version.checkByte?.(sb) };
  const { readInode, readDir, fragment } = await version.open(src, sb);
  return { reader, base: start, limit, blockSize: sb.blockSize, decoder, root: inodeRef(sb.rootInode), uncompressedBit: UNCOMPRESSED, readInode, readDir, fragment };
}

/** The handler's chunk() and extract() for one version. */
export function squashfsHandlerParts<S extends SquashSuperblock>(version: SquashVersion<S>): Pick<Handler, 'chunk' | 'extract'> {
  return {
    async chunk(reader: Reader, start: number): Promise<ChunkInfo | null> {
      const sb = version.parse(await reader.read(start, version.superSize));
      if (!sb) return null;
      if (start + sb.bytesUsed > reader.size) {
        throw new FormatError(`truncated: SquashFS says ${sb.bytesUsed} bytes, only ${reader.size - start} available`);
      }
      return { start, end: start + sb.bytesUsed, meta: version.meta(sb) };
    },
    async extract(reader: Reader, info: ChunkInfo, sink: Sink): Promise<void> {
      await extractSquashfs(await openSquashfs(version, reader, info.start), sink);
    },
  };
}

/** The root inode reference points into the inode table, at an offset inside one metadata block. */
export function rootInodeFits(sb: SquashSuperblock): boolean {
  const rootBlock = Math.floor(sb.rootInode / 65536);
  return rootBlock < sb.directoryTable - sb.inodeTable && sb.rootInode % 65536 < METADATA_SIZE;
}

/** Where the directory table ends: the nearest of the candidate table positions after it, inside the image. */
export function directoryTableEnd(sb: SquashSuperblock, candidates: number[]): number {
  return Math.min(...candidates.filter((c) => c > sb.directoryTable && c <= sb.bytesUsed));
}

/** The superblock fields SquashFS 1.x to 3.x share: raw uid/gid tables of 32-bit ids, and flags. */
export interface LegacySuperblock extends SquashSuperblock {
  inodes: number;
  flags: number;
  uidStart: number;
  uids: number;
  guidStart: number;
  guids: number;
  fragments: number;
  fragmentTable: number;
}

/** What 1.x to 3.x check alike: every table inside bytes_used, past the superblock, in order, and the root inode. */
export function legacyTablesFit(sb: LegacySuperblock, superSize: number): boolean {
  const used = sb.bytesUsed;
  if (sb.inodes === 0 || used < superSize || used >= 2 ** 48) return false;
  const inside = (v: number): boolean => v >= superSize && v < used;
  if (!inside(sb.inodeTable) || !inside(sb.directoryTable) || sb.inodeTable >= sb.directoryTable) return false;
  if (sb.uids === 0 || sb.uidStart + sb.uids * 4 > used || sb.guidStart + sb.guids * 4 > used) return false;
  if (sb.fragments > 0 && !inside(sb.fragmentTable)) return false;
  return rootInodeFits(sb);
}

const FLAG_CHECK = 0x04;

/** The raw uid and gid tables of 1.x to 3.x, as inodeOwner() reads them (`sameAsUid`: the gid index meaning gid = uid). */
export async function readLegacyIds(src: MetadataSource, sb: LegacySuperblock, sameAsUid: number): Promise<{ uids: number[]; guids: number[]; sameAsUid: number }> {
  return { uids: await readWords(src, sb.uidStart, sb.uids), guids: await readWords(src, sb.guidStart, sb.guids), sameAsUid };
}

/** The blocks of 1.x to 3.x: zlib unless a block says otherwise (sqlzma images mix zlib and LZMA blocks); the CHECK flag. */
export const legacyBlocks = {
  decoder: (): BlockDecoder => new LzmaFamilyDecoder(true),
  checkByte: (sb: LegacySuperblock): boolean => (sb.flags & FLAG_CHECK) !== 0,
};

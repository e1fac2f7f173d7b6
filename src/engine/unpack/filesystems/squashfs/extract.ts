// Version-independent SquashFS extraction: walks the directory tree from the root inode, streams regular files
// block by block (decoding a few blocks ahead, in parallel, on the codec thread pool), and records symlinks,
// hardlinks (an inode reached a second time) and special files through the sink. SquashFS 3 and 4 differ only
// in how inodes and directories are laid out; they provide a SquashImage and share this walker.
import { sha256Hex } from '../../../hash.js';
import type { EntryMeta, FileData, Reader, Sink } from '../../handler.js';
import { FormatError } from '../../../format-error.js';
import type { BlockDecoder } from './compressors.js';
import { FragmentCache, fragmentCapacity, fragmentOrder } from './fragment-cache.js';
import { FragmentFiles, fragmentPart, knownFiles, knownPieces, type FragmentPiece } from './stored-forms.js';
import { regularFiles, walkOnce } from './walk.js';

export interface InodeRef {
  /** Position of the inode's metadata block relative to the inode table start. */
  block: number;
  offset: number;
}

export type SquashInode =
  | ({ kind: 'dir'; dirBlock: number; dirOffset: number; /** bytes of listing (file_size − 3) */ listingSize: number } & InodeCommon)
  | ({ kind: 'file'; blocksStart: number; fileSize: number; fragment: number; fragmentOffset: number; blockSizes: number[] } & InodeCommon)
  | ({ kind: 'symlink'; target: string } & InodeCommon)
  | ({ kind: 'device' | 'fifo' | 'socket'; rdev?: number } & InodeCommon);

export interface InodeCommon {
  mode: number;
  uid: number;
  gid: number;
  mtime: number;
}

/** A metadata block decodes to at most 8 KiB and takes at least 3 bytes on disk (2-byte header, 1 byte of data). */
const MAX_METADATA_EXPANSION = 8192 / 3;

/**
 * A regular-file inode (SquashFS 3 and 4 alike) from its decoded fields; `take` reads the block size list that
 * follows the inode in the inode table (one 32-bit word per full block, plus the tail unless it is in a fragment).
 */
export function fileInode(
  r: { startBlock: number; fragment: number; offset: number; fileSize: number },
  take: (bytes: number) => Buffer,
  fs: { endian: 'le' | 'be'; blockSize: number; bytesUsed: number },
  ref: InodeRef,
  common: InodeCommon,
): SquashInode {
  const fragment = r.fragment === 0xffffffff ? -1 : r.fragment;
  const count = fragment === -1 ? Math.ceil(r.fileSize / fs.blockSize) : Math.floor(r.fileSize / fs.blockSize);
  // The list is in compressed metadata, so it may be larger than the image (a sparse file's list is all zeros),
  // but not larger than what the image's metadata blocks can decode to.
  if (count * 4 > fs.bytesUsed * MAX_METADATA_EXPANSION) throw new FormatError(`inode ${ref.block}:${ref.offset}: file size ${r.fileSize} is impossible`);
  const list = take(count * 4);
  const blockSizes = Array.from({ length: count }, (_, i) => (fs.endian === 'le' ? list.readUInt32LE(i * 4) : list.readUInt32BE(i * 4)));
  return { kind: 'file', blocksStart: r.startBlock, fileSize: r.fileSize, fragment, fragmentOffset: r.offset, blockSizes, ...common };
}

export interface SquashDirEntry {
  name: string;
  ref: InodeRef;
}

/** How one SquashFS version lays out a directory listing: its header and entry sizes and parsers. */
export interface DirListingLayout {
  headerSize: number;
  header(raw: Buffer): { count: number; startBlock: number };
  entrySize: number;
  entry(raw: Buffer): { offset: number; size: number };
}

/** The directory reader of a SquashFS version: its directory metadata table read with its listing layout. */
export function directoryReader(
  dirs: { cursor(block: number, offset: number): { take(bytes: number): Buffer } },
  layout: DirListingLayout,
): (dir: Extract<SquashInode, { kind: 'dir' }>) => SquashDirEntry[] {
  return (dir) => {
    const c = dirs.cursor(dir.dirBlock, dir.dirOffset);
    return readDirListing((n) => c.take(n), dir.listingSize, layout);
  };
}

/**
 * Reads a directory listing of `listingSize` bytes (SquashFS 3 and 4 alike): runs of entries, each run behind a
 * header with the entry count − 1 and the inode block they share; names are stored with length − 1.
 */
export function readDirListing(take: (bytes: number) => Buffer, listingSize: number, layout: DirListingLayout): SquashDirEntry[] {
  const entries: SquashDirEntry[] = [];
  let left = listingSize;
  while (left > 0) {
    const head = layout.header(take(layout.headerSize));
    left -= layout.headerSize;
    if (head.count >= 256) throw new FormatError(`directory header with ${head.count + 1} entries (at most 256)`);
    for (let i = 0; i <= head.count; i++) {
      const entry = layout.entry(take(layout.entrySize));
      const name = take(entry.size + 1).toString('utf8');
      left -= layout.entrySize + entry.size + 1;
      if (left < 0) throw new FormatError('directory entries run past the directory size');
      entries.push({ name, ref: { block: head.startBlock, offset: entry.offset } });
    }
  }
  return entries;
}

export interface SquashImage {
  reader: Reader;
  base: number;
  /** Absolute end (base + bytes_used). */
  limit: number;
  blockSize: number;
  decoder: BlockDecoder;
  root: InodeRef;
  /** Bit that marks a data block or fragment stored uncompressed, and the mask of the stored size. */
  uncompressedBit: number;
  readInode(ref: InodeRef): SquashInode;
  readDir(inode: Extract<SquashInode, { kind: 'dir' }>): SquashDirEntry[];
  /** Fragment block: start relative to base and its size word; throws FormatError for a bad index. */
  fragment(index: number): { start: number; sizeWord: number };
}

const READ_AHEAD = 4;
const FILE_CONCURRENCY = 8;

export async function extractSquashfs(img: SquashImage, sink: Sink): Promise<void> {
  const tree = walkOnce(img);
  const files = regularFiles(tree);
  // The whole tree's folders are made first, in the background (before any block decode is queued on libuv's pool),
  // while this thread keys the stored forms and decodes.
  const dirsMade = sink.dirs(tree.items.flatMap((item) => ('inode' in item && item.inode.kind === 'dir' ? [[item.path, metaOf(item.inode)] as const] : [])));
  dirsMade.catch(() => undefined); // awaited after the files, below
  // Files an earlier scan extracted are placed from its store instead of decoded (stored-forms.ts), and a fragment
  // block whose pieces are all known is not decoded at all.
  const reuse = sink.reuse;
  const known = reuse ? await knownFiles(img, files, reuse) : undefined;
  const pieces = reuse ? await knownPieces(img, files, reuse) : undefined;
  const needed = known && pieces ? fragmentsToDecode(img.blockSize, files, known, pieces) : undefined;
  const decodedFiles = needed ? files.filter(({ inode }) => needed.has(inode.fragment)) : files;
  const fragments = new FragmentCache(async (index) => {
    const { start, sizeWord } = img.fragment(index);
    return readBlock(img, start, sizeWord, 1, false);
  }, fragmentOrder(decodedFiles), fragmentCapacity(img.blockSize));
  const inFragments = reuse ? new FragmentFiles(decodedFiles, (index) => fragments.get(index), reuse) : undefined;
  const seen = new Map<string, string>();
  const running = new Set<Promise<void>>();
  // Hard links are recorded once their target is on disk (files are written concurrently).
  const links: Array<{ path: string; target: string; meta: EntryMeta }> = [];
  const failed = new Set<string>();

  const wait = async (max: number): Promise<void> => {
    while (running.size > max) await Promise.race(running);
  };
  /** A file's data: decoded here, or, for a file with a stored-form key, reusable (placed when its tail matches). */
  const dataOf = async (key: string, inode: Extract<SquashInode, { kind: 'file' }>): Promise<FileData> => {
    const decoded = () => fileData(img, inode, fragments);
    const piece = pieces?.get(key);
    if (FragmentFiles.holds(inode)) {
      if (piece?.known && !needed?.has(inode.fragment)) return { key: piece.key, known: piece.known, size: inode.fileSize, decoded };
      const file = await inFragments?.take(key, inode);
      // a new piece is remembered with its content, for the next scan to find it without decoding the fragment
      return file ? { ...file, aliases: piece && !piece.known ? [piece.key] : [], size: inode.fileSize, decoded } : decoded();
    }
    const stored = known?.get(key);
    if (!stored) return decoded();
    // the tail's hash from the memo (its fragment stored as before), or from the decoded fragment
    let tail = piece?.known?.sha256;
    if (tail === undefined) {
      tail = await tailHash(img, inode, fragments);
      if (piece && tail !== undefined) reuse?.remember(piece.key, { sha256: tail, chunkFree: false });
    }
    const match = stored.known && stored.known.tail === tail ? stored.known : undefined;
    return { key: stored.key, known: match, tail, size: inode.fileSize, decoded };
  };
  const fileTask = (path: string, key: string, inode: Extract<SquashInode, { kind: 'file' }>): void => {
    const task = dataOf(key, inode)
      .then((data) => sink.file(path, data, metaOf(inode)))
      .catch((error: unknown) => {
        if (!(error instanceof FormatError)) throw error;
        failed.add(path);
        sink.problem('error', `${path}: ${error.message}`);
      })
      .finally(() => running.delete(task));
    running.add(task);
  };

  let firstError: unknown;
  try {
    for (const item of tree.items) {
      sink.signal.throwIfAborted();
      if ('report' in item) {
        sink.problem('error', item.report);
        continue;
      }
      const { path: child, key: k, inode } = item;
      if (inode.kind === 'dir') continue; // made above
      const first = seen.get(k);
      if (first !== undefined) {
        links.push({ path: child, target: first, meta: metaOf(inode) });
        continue;
      }
      seen.set(k, child);
      if (inode.kind === 'file') {
        await wait(FILE_CONCURRENCY - 1);
        fileTask(child, k, inode);
      } else if (inode.kind === 'symlink') {
        sink.symlink(child, inode.target, metaOf(inode));
      } else {
        const meta = metaOf(inode);
        if (inode.rdev !== undefined) meta.meta = { rdev: inode.rdev };
        sink.special(child, inode.kind, meta);
      }
    }
    if (tree.error) throw tree.error.thrown;
  } catch (error) {
    firstError = error;
  }
  // Let files in flight finish (or fail) before reporting, so nothing writes after extract() returns.
  const results = await Promise.allSettled([...running, dirsMade]);
  if (firstError !== undefined) throw firstError;
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected) throw rejected.reason;
  for (const link of links) {
    if (failed.has(link.target)) sink.problem('error', `${link.path}: hard link to ${link.target}, which could not be extracted`);
    else sink.hardlink(link.path, link.target, link.meta);
  }
}

/**
 * The fragment blocks to decode: each holding a piece the memo does not know, or the tail of a file that is not
 * known with that tail (the file is decoded, tail and all). The others are not decoded: their small files are placed
 * from the store, and their tails are compared by the hash the memo keeps.
 */
export function fragmentsToDecode(
  blockSize: number,
  files: ReadonlyArray<{ key: string; inode: Extract<SquashInode, { kind: 'file' }> }>,
  known: ReadonlyMap<string, { known?: { tail?: string } }>,
  pieces: ReadonlyMap<string, FragmentPiece>,
): Set<number> {
  const needed = new Set<number>();
  for (const { key, inode } of files) {
    if (fragmentPart(inode, blockSize) === 0) continue;
    const piece = pieces.get(key)?.known;
    if (!piece || (!FragmentFiles.holds(inode) && known.get(key)?.known?.tail !== piece.sha256)) needed.add(inode.fragment);
  }
  return needed;
}

function metaOf(inode: InodeCommon): EntryMeta {
  return { mode: inode.mode & 0o7777, uid: inode.uid, gid: inode.gid, mtime: inode.mtime };
}

/** SHA-256 of a file's tail in its fragment block (decoded once for all the files in it), or undefined without one. */
async function tailHash(img: SquashImage, inode: Extract<SquashInode, { kind: 'file' }>, fragments: FragmentCache): Promise<string | undefined> {
  const tail = fragmentPart(inode, img.blockSize);
  if (tail === 0) return undefined;
  const frag = await fragments.get(inode.fragment);
  if (inode.fragmentOffset + tail > frag.length) return undefined; // decoding it reports the fault
  return sha256Hex(frag.subarray(inode.fragmentOffset, inode.fragmentOffset + tail));
}

/** The decoded bytes of one data block or fragment block, checked against the size it must have. */
async function readBlock(img: SquashImage, start: number, sizeWord: number, expected: number, exact: boolean): Promise<Buffer> {
  const stored = sizeWord & (img.uncompressedBit - 1);
  if (stored === 0) return Buffer.alloc(expected); // sparse block
  const abs = img.base + start;
  if (abs + stored > img.limit) throw new FormatError(`data block at ${abs} (${stored} bytes) runs past the end of the filesystem`);
  const data = await img.reader.readExact(abs, stored);
  const out = (sizeWord & img.uncompressedBit) !== 0 ? data : await img.decoder.decode(data, img.blockSize);
  if (exact ? out.length !== expected : out.length < expected) {
    throw new FormatError(`data block at ${abs} decoded to ${out.length} bytes, expected ${expected}`);
  }
  return out;
}

async function* fileData(
  img: SquashImage,
  inode: Extract<SquashInode, { kind: 'file' }>,
  fragments: FragmentCache,
): AsyncIterable<Buffer> {
  const { blockSizes, fileSize } = inode;
  const blockSize = img.blockSize;
  const tail = fileSize - blockSizes.length * blockSize;
  // The tail's fragment is asked for now, in walking order, not after the blocks: by then the walk has gone on
  // through many small files, and the fragment, decoded with theirs, would have been dropped and decoded again.
  const tailFragment = inode.fragment !== -1 && tail > 0 ? fragments.get(inode.fragment) : undefined;
  tailFragment?.catch(() => undefined); // awaited after the blocks
  const pending: Array<Promise<Buffer>> = [];
  let pos = inode.blocksStart;
  let next = 0;
  const schedule = (): void => {
    const i = next++;
    const word = blockSizes[i]!;
    const expected = Math.min(blockSize, fileSize - i * blockSize);
    const p = readBlock(img, pos, word, expected, true);
    p.catch(() => undefined); // awaited in order below; avoid an unhandled rejection while it waits
    pending.push(p);
    pos += word & (img.uncompressedBit - 1);
  };
  try {
    while (next < blockSizes.length && pending.length < READ_AHEAD) schedule();
    while (pending.length > 0) {
      const block = await pending.shift()!;
      if (next < blockSizes.length) schedule();
      yield block;
    }
  } finally {
    pending.length = 0;
  }
  if (tailFragment) {
    const frag = await tailFragment;
    if (inode.fragmentOffset + tail > frag.length) {
      throw new FormatError(`fragment ${inode.fragment} holds ${frag.length} bytes, file needs ${inode.fragmentOffset + tail}`);
    }
    yield frag.subarray(inode.fragmentOffset, inode.fragmentOffset + tail);
  } else if (tail > 0) {
    throw new FormatError(`file of ${fileSize} bytes has only ${blockSizes.length} blocks and no fragment`);
  }
}

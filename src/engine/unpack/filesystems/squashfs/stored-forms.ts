// The stored form of each SquashFS regular file that has data blocks, as a key (issue #15): its compression, block
// size, file size, the size words of its blocks and their stored bytes. Two images that store a file's blocks alike
// decode them alike, so a key the analysis cache remembers names the content without decoding the blocks
// (file-reuse.ts). Small files and the tails of larger ones live in fragment blocks, shared by several files: a
// piece of a fragment (its offset and length in a fragment block whose stored form is the same) is keyed too
// (knownPieces), and a fragment all of whose pieces are known is not decoded. On the bench's next version (every
// tenth file changed) 631 of the 1,115 fragment blocks are stored as before. A piece of a fragment that is decoded
// anyway is keyed by its content (contentKey) as well: writing it is saved (a hard link from the store instead of a
// new file: 15 µs against 70-370 µs on this project's ext4) and so is searching it for chunks when an earlier scan
// found none. Hashing the stored bytes costs a read of the compressed image (in the page cache after the image's
// own hash) and a SHA-256 at memory speed.
import { createHash } from 'node:crypto';
import { sha256Hex } from '../../../hash.js';
import { contentKey, type FileReuse, type StoredContent } from '../../file-reuse.js';
import { hashRange } from '../../firmware/common.js';
import { LzmaFamilyDecoder } from './compressors.js';
import type { SquashImage, SquashInode } from './extract.js';

type FileInode = Extract<SquashInode, { kind: 'file' }>;

/**
 * Each file's stored-form key, and what the memo knows it decodes to, by the file's inode key ('block:offset'); a
 * file whose blocks cannot be read gets none (its extraction reports why).
 */
export async function knownFiles(
  img: SquashImage,
  files: ReadonlyArray<{ key: string; inode: FileInode }>,
  reuse: FileReuse,
): Promise<Map<string, { key: string; known?: StoredContent }>> {
  const keys = new Map<string, string>();
  for (const { key: inodeKey, inode } of files) {
    const key = await storedFormKey(img, inode).catch(() => undefined);
    if (key) keys.set(inodeKey, key);
  }
  const known = await reuse.lookup([...new Set(keys.values())]);
  const out = new Map<string, { key: string; known?: StoredContent }>();
  for (const [inodeKey, key] of keys) {
    const content = known.get(key);
    out.set(inodeKey, content ? { key, known: content } : { key });
  }
  return out;
}

/** A file's piece of a fragment block (all of a small file, a larger file's tail): its key, and what the memo knows of it. */
export interface FragmentPiece {
  key: string;
  /** The piece's SHA-256 (and, for a whole small file, whether it held chunks), when an earlier scan decoded it. */
  known?: StoredContent;
}

/**
 * The key of each file's piece of a fragment block, and what the memo knows of it, by the file's inode key: the
 * stored form of its fragment (compression, block size, size word, stored bytes) with the piece's offset and length.
 * A file whose fragment cannot be read gets none (decoding it reports why).
 */
export async function knownPieces(
  img: SquashImage,
  files: ReadonlyArray<{ key: string; inode: FileInode }>,
  reuse: FileReuse,
): Promise<Map<string, FragmentPiece>> {
  const fragmentKeys = new Map<number, string | undefined>();
  const keys = new Map<string, string>();
  for (const { key: inodeKey, inode } of files) {
    const length = fragmentPart(inode, img.blockSize);
    if (length === 0) continue;
    if (!fragmentKeys.has(inode.fragment)) fragmentKeys.set(inode.fragment, await fragmentKey(img, inode.fragment).catch(() => undefined));
    const fragment = fragmentKeys.get(inode.fragment);
    if (fragment) keys.set(inodeKey, `${fragment}\0${inode.fragmentOffset}\0${length}`);
  }
  const known = await reuse.lookup([...new Set(keys.values())]);
  const out = new Map<string, FragmentPiece>();
  for (const [inodeKey, key] of keys) {
    const content = known.get(key);
    out.set(inodeKey, content ? { key, known: content } : { key });
  }
  return out;
}

/** Bytes of a file in its fragment block (all of a small file, a larger file's tail): 0 when it has none there. */
export function fragmentPart(inode: FileInode, blockSize: number): number {
  return inode.fragment === -1 ? 0 : Math.max(0, inode.fileSize - inode.blockSizes.length * blockSize);
}

async function fragmentKey(img: SquashImage, index: number): Promise<string | undefined> {
  const { start, sizeWord } = img.fragment(index);
  const stored = sizeWord & (img.uncompressedBit - 1);
  const at = img.base + start;
  if (at + stored > img.limit) return undefined;
  const hash = createHash('sha256').update(`squashfs-fragment\0${decoderLabel(img)}\0${img.blockSize}\0${sizeWord}\0`);
  await hashRange(img.reader, hash, at, at + stored);
  return hash.digest('hex');
}

async function storedFormKey(img: SquashImage, inode: FileInode): Promise<string | undefined> {
  if (inode.blockSizes.length === 0) return undefined;
  const hash = createHash('sha256').update(`squashfs\0${decoderLabel(img)}\0${img.blockSize}\0${inode.fileSize}\0${inode.blockSizes.join(',')}\0`);
  const mask = img.uncompressedBit - 1;
  const stored = inode.blockSizes.reduce((n, word) => n + (word & mask), 0);
  const start = img.base + inode.blocksStart;
  if (start + stored > img.limit) return undefined;
  await hashRange(img.reader, hash, start, start + stored);
  return hash.digest('hex');
}

/** The decoder, as the key sees it: its name, and for the LZMA family whether it also takes zlib blocks. */
function decoderLabel(img: SquashImage): string {
  return img.decoder instanceof LzmaFamilyDecoder && img.decoder.allowZlib ? `${img.decoder.name}+zlib` : img.decoder.name;
}

/** A file's key and what the memo knows of it (ReusableFile's key and known), and for a fragment file its content. */
export interface KnownFile {
  key: string;
  known?: StoredContent;
  content?: { bytes: Buffer; sha256: string };
}

/**
 * Fragments whose files are looked up in the memo together (one query instead of one per fragment). The first
 * batches are smaller (1, 2, 4, then 8): the walk waits for the whole first batch to be decoded before it writes a
 * file, ~50 ms for eight fragments at the start of the OpenWrt image's root filesystem, its engine thread idle.
 */
const FRAGMENTS_PER_LOOKUP = 8;

/** The size of lookup batch `n`: 1, 2, 4, then FRAGMENTS_PER_LOOKUP. */
function batchSize(n: number): number {
  return Math.min(FRAGMENTS_PER_LOOKUP, 2 ** n);
}

/**
 * Batches decoded and looked up ahead of the one being written. With one, the decoder threads idled while the
 * engine's thread wrote a batch's files; three took 0.1 s off the unpacking of the bench image's next version.
 */
const BATCHES_AHEAD = 3;

/**
 * The content keys of the files that live wholly in fragment blocks, made when their fragment is decoded, and what
 * the memo knows of them: looked up for a few fragments at once (in the order the walk reaches them), the next
 * batches looked up ahead while the files of these are written. Each file's entry (with its bytes, a view of the
 * decoded fragment) is handed out once (take) and then dropped.
 */
export class FragmentFiles {
  /** The files of each fragment, by fragment index. */
  private readonly members = new Map<number, Array<{ key: string; inode: FileInode }>>();
  /** The fragments that hold such files, by lookup batch in the walk's order, and the lookup batch of each. */
  private readonly batches: number[][] = [];
  private readonly batchOf = new Map<number, number>();
  private readonly looked = new Map<number, Promise<Map<string, KnownFile>>>();

  constructor(
    /** The regular files in walking order. */
    files: ReadonlyArray<{ key: string; inode: FileInode }>,
    private readonly fragment: (index: number) => Promise<Buffer>,
    private readonly reuse: FileReuse,
  ) {
    for (const file of files) {
      if (!FragmentFiles.holds(file.inode)) continue;
      const index = file.inode.fragment;
      const list = this.members.get(index);
      if (list) {
        list.push(file);
        continue;
      }
      this.members.set(index, [file]);
      let last = this.batches.at(-1);
      if (!last || last.length === batchSize(this.batches.length - 1)) this.batches.push((last = []));
      last.push(index);
      this.batchOf.set(index, this.batches.length - 1);
    }
  }

  /** Whether all of a file is in a fragment block (so that it has no stored-form key). */
  static holds(inode: FileInode): boolean {
    return inode.blockSizes.length === 0 && inode.fragment !== -1 && inode.fileSize > 0;
  }

  /** The key of a file of a fragment (by its inode key) and what the memo knows of it; undefined if not a member. */
  async take(inodeKey: string, inode: FileInode): Promise<KnownFile | undefined> {
    const batch = this.batchOf.get(inode.fragment);
    if (batch === undefined) return undefined;
    const files = await this.batch(batch);
    // decoded while these files are written (a failure reaches the file that takes from the batch, if any)
    for (let ahead = 1; ahead <= BATCHES_AHEAD; ahead++) this.batch(batch + ahead).catch(() => undefined);
    const file = files.get(inodeKey);
    files.delete(inodeKey);
    return file;
  }

  private batch(n: number): Promise<Map<string, KnownFile>> {
    let looked = this.looked.get(n);
    if (!looked) {
      looked = this.lookUp(this.batches[n] ?? []);
      this.looked.set(n, looked);
    }
    return looked;
  }

  private async lookUp(indices: readonly number[]): Promise<Map<string, KnownFile>> {
    const out = new Map<string, KnownFile>();
    // a fragment that cannot be decoded gives no keys: decoding its files reports the fault
    const decoded = await Promise.all(indices.map((index) => this.fragment(index).catch(() => undefined)));
    indices.forEach((index, i) => {
      const frag = decoded[i];
      if (!frag) return;
      for (const { key: inodeKey, inode } of this.members.get(index) ?? []) {
        const end = inode.fragmentOffset + inode.fileSize;
        if (end > frag.length) continue;
        const bytes = frag.subarray(inode.fragmentOffset, end);
        const sha256 = sha256Hex(bytes);
        out.set(inodeKey, { key: contentKey(sha256), content: { bytes, sha256 } });
      }
    });
    const known = out.size ? await this.reuse.lookup([...new Set([...out.values()].map((f) => f.key))]) : new Map<string, StoredContent>();
    for (const file of out.values()) file.known = known.get(file.key);
    return out;
  }
}

// The stored form of each SquashFS regular file that has data blocks, as a key (issue #15): its compression, block
// size, file size, the size words of its blocks and their stored bytes. Two images that store a file's blocks alike
// decode them alike, so a key the analysis cache remembers names the content without decoding the blocks
// (file-reuse.ts). A file's tail lives in a fragment block shared with other small files, whose stored bytes change
// when any of them does: the tail is compared by the hash of its decoded bytes instead (the fragment is decoded
// for the files around it anyway). A file with no data block (all of it in a fragment) gets no key: decoding it
// costs only its share of a fragment, no more than placing it would. Hashing the stored bytes costs a read of the
// compressed image (in the page cache after the image's own hash) and a SHA-256 at memory speed.
import { createHash, type Hash } from 'node:crypto';
import type { FileReuse, StoredContent } from '../../file-reuse.js';
import { LzmaFamilyDecoder } from './compressors.js';
import type { SquashImage, SquashInode } from './extract.js';

type FileInode = Extract<SquashInode, { kind: 'file' }>;

/** Bytes read at once while hashing a file's blocks. */
const READ_STEP = 4 * 1024 * 1024;

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

async function storedFormKey(img: SquashImage, inode: FileInode): Promise<string | undefined> {
  if (inode.blockSizes.length === 0) return undefined;
  const hash = createHash('sha256').update(`squashfs\0${decoderLabel(img)}\0${img.blockSize}\0${inode.fileSize}\0${inode.blockSizes.join(',')}\0`);
  const mask = img.uncompressedBit - 1;
  const stored = inode.blockSizes.reduce((n, word) => n + (word & mask), 0);
  const start = img.base + inode.blocksStart;
  if (start + stored > img.limit) return undefined;
  await hashRange(img, start, stored, hash);
  return hash.digest('hex');
}

async function hashRange(img: SquashImage, start: number, length: number, hash: Hash): Promise<void> {
  for (let at = start; at < start + length; at += READ_STEP) {
    hash.update(await img.reader.readExact(at, Math.min(READ_STEP, start + length - at)));
  }
}

/** The decoder, as the key sees it: its name, and for the LZMA family whether it also takes zlib blocks. */
function decoderLabel(img: SquashImage): string {
  return img.decoder instanceof LzmaFamilyDecoder && img.decoder.allowZlib ? `${img.decoder.name}+zlib` : img.decoder.name;
}

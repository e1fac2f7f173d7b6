// The MSF container of a PDB ("Microsoft C/C++ MSF 7.00"): a file of fixed-size blocks holding numbered
// streams. The superblock names the block size and where the block map is; the block map lists the blocks of
// the stream directory; the directory gives each stream's size and blocks. Every index and size is checked
// against the file, so a truncated or corrupt PDB throws FormatError instead of reading out of bounds.
//
//   const msf = parseMsf(buf); const info = msf.stream(1);
import { FormatError } from '../format-error.js';

const MAGIC = Buffer.from('Microsoft C/C++ MSF 7.00\r\n\x1aDS\0\0\0', 'latin1');
const BLOCK_SIZES = new Set([512, 1024, 2048, 4096]);
/** A nil stream (deleted or never written) has this size in the directory. */
const NIL_STREAM = 0xffffffff;
/** Caps that keep a hostile directory cheap: no real PDB comes near them. */
const MAX_STREAMS = 1 << 20;
const MAX_STREAM_BYTES = 512 * 1024 * 1024;

export interface Msf {
  blockSize: number;
  /** Stream sizes by index (0 for nil streams). */
  streamSizes: number[];
  /** The bytes of stream `index`; FormatError when it does not exist. Assembled on each call. */
  stream(index: number): Buffer;
}

export function isPdb(head: Buffer): boolean {
  return head.length >= MAGIC.length && head.subarray(0, MAGIC.length).equals(MAGIC);
}

/** Reads a u32 at `at` of `buf`, or throws FormatError naming `what`. */
export function u32At(buf: Buffer, at: number, what: string): number {
  if (at < 0 || at + 4 > buf.length) throw new FormatError(`${what}: offset ${at} is outside its ${buf.length}-byte stream`);
  return buf.readUInt32LE(at);
}

export function u16At(buf: Buffer, at: number, what: string): number {
  if (at < 0 || at + 2 > buf.length) throw new FormatError(`${what}: offset ${at} is outside its ${buf.length}-byte stream`);
  return buf.readUInt16LE(at);
}

/** Concatenates `size` bytes from the listed blocks. */
function gather(buf: Buffer, blockSize: number, blocks: number[], size: number, what: string): Buffer {
  const out = Buffer.alloc(size);
  let done = 0;
  for (const block of blocks) {
    if (done >= size) break;
    const at = block * blockSize;
    const length = Math.min(blockSize, size - done);
    if (at + length > buf.length) throw new FormatError(`${what}: block ${block} is past the end of the file (truncated PDB?)`);
    buf.copy(out, done, at, at + length);
    done += length;
  }
  if (done < size) throw new FormatError(`${what}: ${blocks.length} blocks hold fewer than its ${size} bytes`);
  return out;
}

export function parseMsf(buf: Buffer): Msf {
  if (!isPdb(buf)) throw new FormatError('not a PDB file (no "Microsoft C/C++ MSF 7.00" superblock)');
  if (buf.length < 56) throw new FormatError('PDB superblock truncated');
  const blockSize = buf.readUInt32LE(32);
  const numBlocks = buf.readUInt32LE(40);
  const directoryBytes = buf.readUInt32LE(44);
  const blockMapAddr = buf.readUInt32LE(52);
  if (!BLOCK_SIZES.has(blockSize)) throw new FormatError(`PDB block size ${blockSize} is not 512, 1024, 2048 or 4096`);
  if (numBlocks * blockSize > buf.length) throw new FormatError(`PDB truncated: ${numBlocks} blocks of ${blockSize} bytes need ${numBlocks * blockSize}, the file has ${buf.length}`);
  if (directoryBytes < 4 || directoryBytes > buf.length) throw new FormatError(`PDB stream directory size ${directoryBytes} out of bounds`);
  const checkBlock = (block: number, what: string): number => {
    if (block === 0 || block >= numBlocks) throw new FormatError(`${what}: block ${block} is outside the ${numBlocks} blocks of the file`);
    return block;
  };
  const directoryBlockCount = Math.ceil(directoryBytes / blockSize);
  const mapAt = checkBlock(blockMapAddr, 'PDB block map') * blockSize;
  if (mapAt + directoryBlockCount * 4 > buf.length) throw new FormatError('PDB block map truncated');
  const directoryBlocks: number[] = [];
  for (let i = 0; i < directoryBlockCount; i++) directoryBlocks.push(checkBlock(buf.readUInt32LE(mapAt + i * 4), 'PDB stream directory'));
  const directory = gather(buf, blockSize, directoryBlocks, directoryBytes, 'PDB stream directory');

  const count = directory.readUInt32LE(0);
  if (count > MAX_STREAMS || 4 + count * 4 > directory.length) throw new FormatError(`PDB stream directory lists ${count} streams but holds ${directory.length} bytes`);
  const streamSizes: number[] = [];
  const streamBlocks: number[][] = [];
  let at = 4 + count * 4;
  for (let i = 0; i < count; i++) {
    const raw = directory.readUInt32LE(4 + i * 4);
    const size = raw === NIL_STREAM ? 0 : raw;
    if (size > MAX_STREAM_BYTES || size > numBlocks * blockSize) throw new FormatError(`PDB stream ${i}: size ${size} exceeds the file`);
    const blocks: number[] = [];
    const n = Math.ceil(size / blockSize);
    if (at + n * 4 > directory.length) throw new FormatError(`PDB stream directory truncated at stream ${i}`);
    for (let k = 0; k < n; k++) blocks.push(checkBlock(directory.readUInt32LE(at + k * 4), `PDB stream ${i}`));
    at += n * 4;
    streamSizes.push(size);
    streamBlocks.push(blocks);
  }
  return {
    blockSize,
    streamSizes,
    stream(index: number): Buffer {
      if (!Number.isInteger(index) || index < 0 || index >= count) throw new FormatError(`PDB stream ${index} does not exist (the file has ${count})`);
      return gather(buf, blockSize, streamBlocks[index]!, streamSizes[index]!, `PDB stream ${index}`);
    },
  };
}

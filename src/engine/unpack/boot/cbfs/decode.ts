// Decoding of CBFS file contents: the compression algorithms coreboot's cbfstool uses (none, LZMA with the
// 13-byte LZMA-alone header, LZ4 frames of independent or linked blocks), legacy stage headers and SELF payload
// segments. Everything here works on one file's bytes in memory (CBFS files are small) with capped output.
import { lzmaAlone } from '../../codecs/blocks.js';
import { lz4DecodeInto } from '../../codecs/lz4-block.js';
import { FormatError } from '../../../format-error.js';
import { struct } from '../../struct.js';

export const COMPRESSION = ['none', 'lzma', 'lz4'] as const;
const LZ4_MAGIC = 0x184d2204;
const LZ4_BLOCK_MAX = [0, 0, 0, 0, 64 << 10, 256 << 10, 1 << 20, 4 << 20];

/** An LZ4 frame decoded into `size` bytes (the size CBFS records for the file). */
function lz4Frame(data: Buffer, size: number): Buffer {
  if (data.length < 7 || data.readUInt32LE(0) !== LZ4_MAGIC) throw new FormatError('CBFS lz4: not an LZ4 frame');
  const flg = data[4]!;
  const blockMax = LZ4_BLOCK_MAX[(data[5]! >> 4) & 7]!;
  if (flg >> 6 !== 1 || !blockMax) throw new FormatError('CBFS lz4: unsupported frame descriptor');
  let at = 6 + (flg & 0x08 ? 8 : 0) + (flg & 0x01 ? 4 : 0) + 1;
  const out = Buffer.alloc(size);
  let op = 0;
  while (true) {
    if (at + 4 > data.length) throw new FormatError('CBFS lz4: truncated block size');
    const word = data.readUInt32LE(at);
    at += 4;
    if (word === 0) break;
    const length = word & 0x7fffffff;
    if (length > blockMax || at + length > data.length) throw new FormatError('CBFS lz4: block runs past the data');
    const block = data.subarray(at, at + length);
    if (word & 0x80000000) {
      if (op + length > size) throw new FormatError('CBFS lz4: output larger than recorded');
      block.copy(out, op);
      op += length;
    } else {
      // Linked blocks refer back into earlier output, which is all in `out`.
      op = lz4DecodeInto(block, out, op);
    }
    at += length + (flg & 0x10 ? 4 : 0);
  }
  return out.subarray(0, op);
}

export async function decompress(compression: number, data: Buffer, size: number, cap: number): Promise<Buffer> {
  if (size > cap) throw new FormatError(`CBFS: decompressed size ${size} exceeds the limit of ${cap} bytes`);
  switch (compression) {
    case 0:
      return data;
    case 1:
      return lzmaAlone(data, cap);
    case 2:
      return lz4Frame(data, size);
    default:
      throw new FormatError(`CBFS: unknown compression ${compression}`);
  }
}

// coreboot's struct cbfs_stage (little-endian, unlike the rest of CBFS).
export const StageHeader = struct('le', { compression: 'u32', entry: 'u64', load: 'u64', len: 'u32', memlen: 'u32' });

// struct cbfs_payload_segment (big-endian).
export const Segment = struct('be', { type: 'u32', compression: 'u32', offset: 'u32', load: 'u64', len: 'u32', memlen: 'u32' });
export const SEGMENT_TYPES: Record<number, string> = {
  0x434f4445: 'code',
  0x44415441: 'data',
  0x42535320: 'bss',
  0x50415241: 'params',
  0x454e5452: 'entry',
};
export const MAX_SEGMENTS = 256;

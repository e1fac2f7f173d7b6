// Decoders for zip compression methods (APPNOTE.TXT 4.4.5), each a generator of decoded blocks over the entry's
// compressed bytes [start, end): deflate (8), deflate64 (9, inflate64.ts), bzip2 (12), LZMA (14: a 4-byte zip LZMA header, the 5 properties
// bytes, then a raw LZMA1 stream, with an end marker when flag bit 1 says so), zstd (93, and 20 as early writers
// numbered it) and xz (95). Encrypted entries are described, never decoded.
import zlib from 'node:zlib';
import { lzma, parseLzmaPropsByte } from '../../codecs/blocks.js';
import { FormatError } from '../../../format-error.js';
import type { Reader } from '../../handler.js';
import { bzip2Blocks } from '../../codecs/bzip2.js';
import { decodeRange } from '../../compression/decode-stream.js';
import { lzmaDecoder } from '../../compression/lzma-stream.js';
import { SplicedReader } from '../../compression/reader-views.js';
import { zstdBlocks } from '../../compression/zstd-stream.js';
import type { ZipEntry } from './directory.js';
import { inflate64Blocks } from './inflate64.js';

export const METHOD_NAMES: Record<number, string> = {
  0: 'stored', 1: 'shrunk', 6: 'imploded', 8: 'deflate', 9: 'deflate64', 12: 'bzip2', 14: 'LZMA', 19: 'IBM LZ77',
  20: 'zstd (early id)', 93: 'zstd', 95: 'xz', 96: 'JPEG', 97: 'WavPack', 98: 'PPMd', 99: 'AES-encrypted',
};

const FLAG_ENCRYPTED = 0x0001;
const FLAG_LZMA_EOS = 0x0002;
const FLAG_STRONG_ENCRYPTION = 0x0040;
const AES_EXTRA = 0x9901;
const AES_STRENGTHS: Record<number, string> = { 1: 'AES-128', 2: 'AES-192', 3: 'AES-256' };

/** Why an entry cannot be read without a password (traditional PKWARE, WinZip AES or PKWARE strong encryption), or null. */
export function encryption(entry: ZipEntry): string | null {
  if (entry.method === 99 || entry.aes) {
    const strength = entry.aes ? AES_STRENGTHS[entry.aes.strength] : undefined;
    const inner = entry.aes ? (METHOD_NAMES[entry.aes.method] ?? `method ${entry.aes.method}`) : undefined;
    return `WinZip ${strength ?? 'AES'} encryption${inner ? ` (${inner} inside)` : ''}`;
  }
  if (entry.flags & FLAG_STRONG_ENCRYPTION) return 'PKWARE strong encryption';
  if (entry.flags & FLAG_ENCRYPTED) return 'traditional PKWARE encryption';
  return null;
}

/** The entry's compressed bytes as a reader of their own (offset 0 = first byte), so no decoder reads past them. */
function range(reader: Reader, start: number, end: number, prefix = Buffer.alloc(0)): Reader {
  return new SplicedReader(prefix, reader, start, end, 0);
}

/**
 * Zip's LZMA: version (2 bytes), properties size (2 bytes, 5), properties (lc/lp/pb byte + dictionary size), stream.
 * Given to liblzma's LZMA-alone decoder behind a header declaring the entry's size, or -1 when the stream has an
 * end marker (liblzma refuses a marker after a declared size).
 */
async function* lzmaBlocks(reader: Reader, entry: ZipEntry, start: number, end: number, signal: AbortSignal): AsyncGenerator<Buffer, number> {
  const head = await reader.readExact(start, 9);
  const propsSize = head.readUInt16LE(2);
  if (propsSize !== 5) throw new FormatError(`LZMA properties of ${propsSize} bytes`);
  const dictSize = head.readUInt32LE(5);
  if (!parseLzmaPropsByte(head[4]!, dictSize)) throw new FormatError(`invalid LZMA properties byte 0x${head[4]!.toString(16)}`);
  const alone = Buffer.alloc(13, 0xff);
  head.copy(alone, 0, 4, 9);
  if (!(entry.flags & FLAG_LZMA_EOS)) alone.writeBigUInt64LE(BigInt(entry.size), 5);
  return yield* decodeRange('zip-lzma', range(reader, start + 9, end, alone), 0, lzmaDecoder(lzma().createStream('aloneDecoder', {})), signal);
}

/** The decoded blocks of an entry's data at [start, end), or null when the method is not supported. */
export function entryBlocks(reader: Reader, entry: ZipEntry, start: number, end: number, signal: AbortSignal): AsyncGenerator<Buffer, number> | null {
  switch (entry.method) {
    case 8: {
      const inflater = zlib.createInflateRaw();
      return decodeRange('zip', range(reader, start, end), 0, { stream: inflater, consumed: () => inflater.bytesWritten }, signal);
    }
    case 9:
      return inflate64Blocks(reader, start, end, signal);
    case 12:
      return bzip2Blocks(range(reader, start, end), 0, signal);
    case 14:
      return lzmaBlocks(reader, entry, start, end, signal);
    case 20:
    case 93:
      return zstdBlocks(reader, start, end, signal);
    case 95:
      return decodeRange('zip-xz', range(reader, start, end), 0, lzmaDecoder(lzma().createStream('streamDecoder', {})), signal);
    default:
      return null;
  }
}

// Whether an in-memory .xz stream bounds its own output: one Block whose header declares its compressed and
// uncompressed sizes, followed only by a small Index and the Stream Footer, ending exactly where the input does.
// mksquashfs writes every xz block of a SquashFS this way (lzma_stream_buffer_encode), as multi-threaded `xz` does.
//
// Why it matters: decodeLzma feeds liblzma STEP bytes per call because liblzma decodes all of a call's input before
// anyone sees the output, and LZMA expands by thousands of times. But liblzma's Block decoder stops with a data
// error as soon as a Block's output passes its declared Uncompressed Size (one output buffer of lzma-native past it
// at most: decodeLzma sets that buffer to the declared size, so that the block comes out in one piece), so such a
// stream can be given to liblzma whole: one call instead of one per 16 KiB. Each call on libuv's pool costs the
// engine's thread ~50-70 µs on this project's 2-core machines (waking a pool thread), four per block on the bench
// image's 1,700 xz blocks. What else the input could hold fits in MAX_INDEX bytes, where even a hostile second Block
// cannot expand to more than a few MiB (each LZMA2 chunk needs a few bytes and yields at most 2 MiB), against the
// 128 MB that one 16 KiB step allows.
// Format: https://tukaani.org/xz/xz-file-format.txt (sections 2.1, 3.1, 4).

const HEADER_MAGIC = Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]);
const FOOTER_MAGIC = Buffer.from('YZ');
/** Stream Header and Stream Footer: 12 bytes each. */
const STREAM_EDGE = 12;
/** The most bytes an Index may take here: one record needs about 24 (its indicator, count, two sizes, CRC32). */
const MAX_INDEX = 64;
/** Bytes of the integrity check by its id (xz-file-format 2.1.1.2). */
const CHECK_SIZES = [0, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64];

/**
 * The Uncompressed Size the stream's only Block declares, when the stream is laid out as above and that size is at
 * most `maxOutput`; undefined otherwise (then it is decoded in steps, as any stream). The headers' CRCs are
 * liblzma's to check: a stream that lies about its layout here fails there.
 */
export function declaredXzSize(data: Buffer, maxOutput: number): number | undefined {
  if (data.length < 2 * STREAM_EDGE + 8 || !data.subarray(0, 6).equals(HEADER_MAGIC)) return undefined;
  if (!data.subarray(data.length - 2).equals(FOOTER_MAGIC)) return undefined;
  const checkSize = CHECK_SIZES[data[7]! & 0x0f]!;
  const headerSize = (data[STREAM_EDGE]! + 1) * 4;
  const flags = data[STREAM_EDGE + 1]!;
  // 0x00 starts an Index, not a Block; both sizes must be declared, and no reserved bit set
  if (data[STREAM_EDGE] === 0 || (flags & 0xc0) !== 0xc0 || (flags & 0x3c) !== 0) return undefined;
  let at = STREAM_EDGE + 2;
  const compressed = readVli(data, at, STREAM_EDGE + headerSize);
  if (!compressed) return undefined;
  at += compressed.length;
  const uncompressed = readVli(data, at, STREAM_EDGE + headerSize);
  if (!uncompressed || uncompressed.value > maxOutput) return undefined;
  const blockEnd = STREAM_EDGE + headerSize + compressed.value + ((4 - (compressed.value % 4)) % 4) + checkSize;
  const indexSize = (data.readUInt32LE(data.length - 8) + 1) * 4; // the footer's Backward Size
  if (indexSize > MAX_INDEX || blockEnd + indexSize + STREAM_EDGE !== data.length) return undefined;
  return uncompressed.value;
}

/** A variable-length integer (7 bits a byte, low first, at most 9 bytes) read before `end`. */
function readVli(data: Buffer, at: number, end: number): { value: number; length: number } | undefined {
  let value = 0;
  for (let i = 0; i < 9 && at + i < end; i++) {
    const byte = data[at + i]!;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return i > 0 && byte === 0 ? undefined : { value, length: i + 1 };
  }
  return undefined;
}

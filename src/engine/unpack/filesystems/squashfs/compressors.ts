// Block decompression for SquashFS: one decoder per compression id, and the LZMA family, where vendors used
// several incompatible block layouts under the same id. The LZMA decoder finds which layout a block uses by
// trying them in order of plausibility and remembers the one that worked for the rest of the image.
import { lzo1xDecompress } from '../../codecs/lzo.js';
import { inflate, lz4Block, parseLzmaPropsByte, xz, zstd, type LzmaProps } from '../../codecs/blocks.js';
import { decodeLzma } from '../../codecs/lzma.js';
import { FormatError } from '../../../format-error.js';

export interface BlockDecoder {
  readonly name: string;
  /** Decodes one compressed block whose output is at most `maxOutput` bytes. */
  decode(data: Buffer, maxOutput: number): Promise<Buffer>;
}

export const COMPRESSION_NAMES: Record<number, string> = { 1: 'gzip', 2: 'lzma', 3: 'lzo', 4: 'xz', 5: 'lz4', 6: 'zstd' };

type LzmaLayout = 'zlib' | 'lzma-alone' | 'lzma-props5' | 'lzma-raw';

const isZlibHeader = (data: Buffer): boolean =>
  data.length >= 2 && (data[0]! & 0x0f) === 8 && (data[0]! >> 4) <= 7 && ((data[0]! << 8) | data[1]!) % 31 === 0;

/**
 * SquashFS "lzma" blocks as found in the wild:
 * - lzma-alone: the 13-byte .lzma header (props, dictionary size, 64-bit size) + stream (squashfs-tools 4, sqlzma);
 * - lzma-props5: props byte + 32-bit dictionary size + raw stream, no size field (Broadcom/TRENDnet-style kernels);
 * - lzma-raw: a bare raw stream with the default properties (lc=3, lp=0, pb=2), as sasquatch's adaptive mode
 *   finds in some vendor images; tried last;
 * - zlib: sqlzma images mix zlib and LZMA blocks and tell them apart by the zlib header.
 */
export class LzmaFamilyDecoder implements BlockDecoder {
  readonly name = 'lzma';
  /** The layout that decoded the last block; tried first. */
  layout: LzmaLayout | undefined;

  constructor(readonly allowZlib: boolean) {}

  async decode(data: Buffer, maxOutput: number): Promise<Buffer> {
    const order = this.candidates(data, maxOutput);
    if (order.length === 0) throw new FormatError('lzma: block matches no known LZMA block layout');
    let firstError: unknown;
    for (const layout of order) {
      try {
        const out = await decodeLayout(layout, data, maxOutput);
        this.layout = layout;
        return out;
      } catch (error) {
        firstError ??= error;
      }
    }
    throw firstError instanceof FormatError ? firstError : new FormatError(`lzma: ${String(firstError)}`);
  }

  private candidates(data: Buffer, maxOutput: number): LzmaLayout[] {
    const plausible: LzmaLayout[] = [];
    if (this.allowZlib && isZlibHeader(data)) plausible.push('zlib');
    if (data.length >= 6 && parseLzmaPropsByte(data[0]!, 0) !== null) {
      if (data.length >= 14 && data[13] === 0) {
        const size = data.readBigUInt64LE(5);
        if (size === 0xffffffffffffffffn || size <= BigInt(maxOutput)) plausible.push('lzma-alone');
      }
      // A range-coded LZMA stream always starts with a zero byte.
      if (data[5] === 0) plausible.push('lzma-props5');
    }
    if (data.length >= 5 && data[0] === 0) plausible.push('lzma-raw');
    if (this.layout && plausible.includes(this.layout)) {
      return [this.layout, ...plausible.filter((l) => l !== this.layout)];
    }
    return plausible;
  }
}

async function decodeLayout(layout: LzmaLayout, data: Buffer, maxOutput: number): Promise<Buffer> {
  if (layout === 'zlib') return inflate(data, maxOutput);
  if (layout === 'lzma-raw') {
    const out = await lzmaRawPrefix({ lc: 3, lp: 0, pb: 2, dictSize: Math.max(4096, maxOutput) }, data, maxOutput);
    if (out.length === 0) throw new FormatError('lzma: raw block decoded to nothing');
    return out;
  }
  const props = parseLzmaPropsByte(data[0]!, data.readUInt32LE(1))!;
  // A dictionary larger than the output changes nothing when decoding; capping it saves a big allocation.
  props.dictSize = Math.max(4096, Math.min(props.dictSize, maxOutput));
  if (layout === 'lzma-alone') {
    // Decoded as a raw stream: squashfs-tools' encoder leaves bytes after the declared size, which liblzma's
    // .lzma decoder would take for a second, corrupt stream.
    const declared = data.readBigUInt64LE(5);
    const want = declared === 0xffffffffffffffffn ? maxOutput : Number(declared);
    const out = await lzmaRawPrefix(props, data.subarray(13), want);
    if (declared !== 0xffffffffffffffffn && out.length !== want) {
      throw new FormatError(`lzma: block decoded to ${out.length} bytes, header says ${declared}`);
    }
    return out;
  }
  const out = await lzmaRawPrefix(props, data.subarray(5), maxOutput);
  if (out.length === 0) throw new FormatError('lzma: raw block decoded to nothing');
  return out;
}

/**
 * Decodes a raw LZMA1 stream and keeps at most `limit` bytes. Streams without an end marker simply run out
 * of input, so an error after some output ends the block rather than failing it (callers check sizes).
 */
async function lzmaRawPrefix(props: LzmaProps, data: Buffer, limit: number): Promise<Buffer> {
  return decodeLzma('lzma', { kind: 'raw', props }, data, limit, { allowTruncated: true, stopAt: limit });
}

const simple = (name: string, decode: (data: Buffer, maxOutput: number) => Buffer | Promise<Buffer>): BlockDecoder => ({
  name,
  decode: async (data, maxOutput) => decode(data, maxOutput),
});

/** The decoder for a SquashFS 4 compression id, or undefined when the id is unknown. */
export function decoderFor(id: number): BlockDecoder | undefined {
  switch (id) {
    case 1:
      return simple('gzip', inflate);
    case 2:
      return new LzmaFamilyDecoder(false);
    case 3:
      return simple('lzo', lzo1xDecompress);
    case 4:
      return simple('xz', (data, max) => xz(data, max));
    case 5:
      return simple('lz4', lz4Block);
    case 6:
      return simple('zstd', zstd);
    default:
      return undefined;
  }
}

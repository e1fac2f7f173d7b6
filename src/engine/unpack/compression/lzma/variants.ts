// The LZMA-alone header and the vendor variants found in router firmware, and the two ways to decode them:
// - the standard 13-byte header (properties, dictionary size, 64-bit uncompressed size or -1 for unknown);
// - a 5-byte header without the size field (properties + dictionary size, then the stream), as some Broadcom,
//   Realtek and TP-Link kernels carry;
// - a declared size that is wrong (too small, too large, or given alongside an end marker, which liblzma refuses);
// - streams without an end marker followed by padding or by other data.
// A declared size is trusted first (liblzma decodes exactly that much and checks the range coder finished there).
// Everything else is decoded as a raw LZMA1 stream of unknown size: it ends at its end marker, or, without one,
// where its input ends: at the first run of padding (FillerBoundedReader) or at the end of the data, where its exact
// size is then measured (measureUnsized); or, followed by other data, where its range coder last finished before
// the decoder broke (measureBroken).
import { FormatError } from '../../../format-error.js';
import type { ChunkContext, Reader } from '../../handler.js';
import { lzma, parseLzmaPropsByte } from '../../codecs/blocks.js';
import { struct } from '../../struct.js';
import { countOnly, decodeRange, QUIET_BELOW } from '../decode-stream.js';
import { lzmaDecoder } from '../lzma-stream.js';
import { decodeLzmaStream } from '../lzma-stream-decode.js';
import { findLzmaEnd } from './end-finder.js';
import { FillerBoundedReader, SplicedReader } from '../reader-views.js';

const Header = struct('le', { props: 'u8', dictSize: 'u32', sizeLow: 'u32', sizeHigh: 'u32' });
const MAX_SIZE = 2 ** 36;
/** A stream that breaks on a data error, rather than at the end of its input, must have produced this much. */
const MIN_OUTPUT_BEFORE_BREAK = 4096;

export type LzmaLayout = 'alone' | 'no-size';

export type LzmaHeader = {
  layout: LzmaLayout;
  /** 13 for the LZMA-alone header, 5 for the variant without a size field. */
  headerSize: number;
  props: number;
  dictSize: number;
  /** Uncompressed size, or undefined when the header says unknown (-1) or has no size field. */
  size?: number;
};

/** Properties byte and dictionary size: lc + lp <= 4, a dictionary of 4 KiB .. 1.5 GiB that is 2^n or 2^n + 2^(n-1). */
function plausibleProps(props: number, dictSize: number): boolean {
  const parsed = parseLzmaPropsByte(props, dictSize);
  if (!parsed || parsed.lc + parsed.lp > 4) return false;
  if (dictSize < 4096 || dictSize > 1536 * 1024 * 1024) return false;
  const top = 2 ** Math.floor(Math.log2(dictSize));
  return dictSize === top || dictSize === top + top / 2;
}

/** The standard 13-byte header, sanity-checked; null when it is not plausible. */
export function parseLzmaAloneHeader(head: Buffer): LzmaHeader | null {
  if (head.length < Header.size + 1) return null;
  const h = Header.parse(head);
  if (!plausibleProps(h.props, h.dictSize)) return null;
  const unknown = h.sizeLow === 0xffffffff && h.sizeHigh === 0xffffffff;
  const size = unknown ? undefined : h.sizeHigh * 2 ** 32 + h.sizeLow;
  if (size !== undefined && (size === 0 || size > MAX_SIZE)) return null;
  if (head[Header.size] !== 0) return null; // the range coder's first byte is always 0
  return { layout: 'alone', headerSize: Header.size, props: h.props, dictSize: h.dictSize, size };
}

/** Every plausible reading of the bytes at a candidate, the standard header first. */
export function parseLzmaHeaders(head: Buffer): LzmaHeader[] {
  const out: LzmaHeader[] = [];
  const alone = parseLzmaAloneHeader(head);
  if (alone) out.push(alone);
  // Without a size field the stream's first byte (always 0) follows the dictionary size.
  if (head.length >= 6 && head[5] === 0) {
    const dictSize = head.readUInt32LE(1);
    if (plausibleProps(head[0]!, dictSize)) out.push({ layout: 'no-size', headerSize: 5, props: head[0]!, dictSize });
  }
  return out;
}

/** A declared size, decoded by liblzma's LZMA-alone decoder: exactly that many bytes, ending with a finished range coder. */
export function decodeSized(reader: Reader, start: number, end: number | undefined, signal?: AbortSignal): AsyncGenerator<Buffer, number> {
  const bounded = new FillerBoundedReader(reader, start + Header.size, end);
  return decodeLzmaStream('lzma', { kind: 'alone' }, bounded, start, signal);
}

function rawDecoder(header: LzmaHeader, skipped: number) {
  const props = parseLzmaPropsByte(header.props, header.dictSize)!;
  // Small output buffers: what the decoder holds when it breaks is lost.
  const native = lzma().createStream('rawDecoder', {
    bufsize: 4096,
    filters: [{ id: lzma().FILTER_LZMA1, options: { dictSize: props.dictSize, lc: props.lc, lp: props.lp, pb: props.pb } }],
  });
  return lzmaDecoder(native, skipped);
}

export interface UnsizedEnd {
  /** Absolute end of the stream. */
  end: number;
  /** The stream ended with its end-of-payload marker. */
  endMarker: boolean;
  /** Without a marker: what ended the input the decoder could use. */
  cut?: 'filler' | 'end-of-data' | 'decoder-break';
}

/**
 * Decodes the stream after the header as raw LZMA1 with unknown size. Without an end marker the decode stops at the
 * end of its (filler-bounded) input, or where the decoder breaks; that is the stream's end when enough came out
 * first, otherwise the failure is passed on (a false positive, or a stream too broken to keep).
 */
export async function* decodeUnsized(
  reader: Reader,
  start: number,
  header: LzmaHeader,
  end: number | undefined,
  signal?: AbortSignal,
): AsyncGenerator<Buffer, UnsizedEnd> {
  const streamStart = start + header.headerSize;
  const bounded = new FillerBoundedReader(reader, streamStart, end);
  const decoder = rawDecoder(header, header.headerSize);
  const blocks = decodeRange('lzma', bounded, streamStart, decoder, signal);
  let size = 0;
  for (;;) {
    let next: IteratorResult<Buffer, number>;
    try {
      next = await blocks.next();
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      const at = start + decoder.consumed();
      const inputEnded = at >= bounded.size;
      // Before any real output, a break means this was never LZMA: quiet (countOnly treats it as a false positive).
      if (size < (inputEnded ? QUIET_BELOW : MIN_OUTPUT_BEFORE_BREAK)) throw new FormatError(`lzma: ${error.message.replace(/^lzma: /, '')}`);
      if (inputEnded) return { end: bounded.size, endMarker: false, cut: bounded.filler !== undefined ? 'filler' : 'end-of-data' };
      return { end: Math.max(at, streamStart + 1), endMarker: false, cut: 'decoder-break' };
    }
    if (next.done) return { end: start + next.value, endMarker: true };
    size += next.value.length;
    yield next.value;
  }
}

/**
 * Zero bytes given to the decoder after a cut: the range coder's last flushed bytes are often zeros (most LZMA SDK
 * streams end with one or two), which merge into zero padding and are cut off with it.
 */
const TAIL_ZEROS = 8;

/**
 * A stream without a marker, measured (measureUnsized), decoded by the LZMA-alone decoder behind a header that
 * declares its size: input [stream start, cut) then zero bytes. Returns the absolute end of what it consumed.
 */
export async function* decodeMeasured(reader: Reader, start: number, header: LzmaHeader, size: number, cut: number, signal?: AbortSignal): AsyncGenerator<Buffer, number> {
  const synthetic = Buffer.alloc(Header.size);
  synthetic[0] = header.props;
  synthetic.writeUInt32LE(header.dictSize, 1);
  synthetic.writeBigUInt64LE(BigInt(size), 5);
  const streamStart = start + header.headerSize;
  // Twice the zeros measureUnsized decoded with: at the declared size the decoder may read one more byte.
  const input = new SplicedReader(synthetic, reader, streamStart, cut, 2 * TAIL_ZEROS);
  const consumed = yield* decodeLzmaStream('lzma', { kind: 'alone' }, input, 0, signal);
  return streamStart + consumed - Header.size;
}

/**
 * The exact size and end of a stream without an end marker whose input was cut at `cut` (padding or the end of the
 * data), where `decodedAtCut` bytes came out. liblzma's LZMA-alone decoder accepts a declared size only where its
 * range coder is finished: never before the real end, and, with zeros after it (which decode as nothing but zero
 * literals and keep the coder finished), at every size from the real end on. So the smallest size it accepts is
 * the stream's size, searched for between the last non-zero byte that came out with a few zeros more (garbage past
 * the end is only zero literals) and all that came out then.
 * Null when no size is accepted (a truncated stream, or one followed by bytes that are not zeros).
 */
export async function measureUnsized(
  reader: Reader,
  start: number,
  header: LzmaHeader,
  cut: number,
  decodedAtCut: number,
  ctx?: ChunkContext,
): Promise<{ size: number; end: number } | null> {
  const extended = new SplicedReader(Buffer.alloc(0), reader, start + header.headerSize, cut, TAIL_ZEROS);
  let upper = 0;
  let lastNonZero = -1;
  try {
    const blocks = decodeRange('lzma', extended, 0, rawDecoder(header, 0), ctx?.signal);
    for await (const block of blocks) {
      for (let i = block.length - 1; i >= 0; i--) {
        if (block[i] !== 0) {
          lastNonZero = upper + i;
          break;
        }
      }
      upper += block.length;
      if (ctx && upper > ctx.maxOutput) return null;
    }
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    // Ran out of input (no marker): what came out counts.
  }
  const accepted = async (size: number): Promise<number | null> => {
    try {
      const counted = await countOnly('lzma', decodeMeasured(reader, start, header, size, cut, ctx?.signal), ctx);
      return counted?.result ?? null;
    } catch (error) {
      if (error instanceof FormatError) return null;
      throw error;
    }
  };
  // Accepted sizes form a range [size, upper]: find its start. What came out at the cut is usually within a byte of
  // it, but a stream ending in zeros may have decoded a few zero literals past it, so gallop down from there first.
  const floor = Math.max(1, lastNonZero + 1);
  if (upper < floor) return null;
  let good = upper;
  let end = await accepted(upper);
  if (end === null) return null;
  let bad = floor - 1;
  for (let guess = Math.min(upper - 1, Math.max(floor, decodedAtCut - 1)), step = 1; guess > bad; guess = Math.max(bad, good - step), step *= 2) {
    const at = await accepted(guess);
    if (at === null) {
      bad = guess;
      break;
    }
    good = guess;
    end = at;
  }
  while (good - bad > 1) {
    const mid = Math.floor((good + bad) / 2);
    const at = await accepted(mid);
    if (at === null) bad = mid;
    else {
      good = mid;
      end = at;
    }
  }
  // Zeros the decoder took past the cut are the stream's own only if the file has them there.
  if (end > cut) {
    const after = await reader.read(cut, end - cut);
    if (after.length < end - cut || after.some((b) => b !== 0)) end = cut;
  }
  return { size: good, end };
}

/**
 * A stream without a marker that ran into other data (the decoder broke at `brokeAt`, with `decodedAtBreak` bytes out): its exact end and size from
 * the range coder (end-finder.ts), confirmed by liblzma decoding exactly that size from exactly those bytes.
 */
export async function measureBroken(
  reader: Reader,
  start: number,
  header: LzmaHeader,
  brokeAt: number,
  decodedAtBreak: number,
  ctx?: ChunkContext,
): Promise<{ size: number; end: number } | null> {
  const streamStart = start + header.headerSize;
  const limit = Math.min(reader.size, brokeAt + 64 * 1024);
  // liblzma lost at most its 4 KiB output buffer at the break: the stream is not much longer than what came out.
  const sizeHint = decodedAtBreak + 1024 * 1024;
  const found = await findLzmaEnd(reader, streamStart, header.props, header.dictSize, limit, { signal: ctx?.signal, sizeHint });
  if (!found || found.end <= streamStart || found.size === 0 || (ctx && found.size > ctx.maxOutput)) return null;
  try {
    const counted = await countOnly('lzma', decodeMeasured(reader, start, header, found.size, found.end, ctx?.signal), ctx);
    return counted && counted.size === found.size ? found : null;
  } catch (error) {
    if (error instanceof FormatError) return null;
    throw error;
  }
}

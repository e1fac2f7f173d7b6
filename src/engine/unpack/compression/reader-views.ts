// Views of a Reader for decoders that must not read what is not theirs: FillerBoundedReader ends at the padding after
// a stream (for LZMA streams without an end marker), SplicedReader presents a byte range with a prefix and zero bytes
// around it (a synthesized header for liblzma, or just an entry's compressed bytes for a zip method decoder).
import type { Readable } from 'node:stream';
import { FormatError } from '../../format-error.js';
import type { Reader } from '../handler.js';

/** Erased flash (0xFF) or zero fill: a run this long never occurs inside a range-coded LZMA stream. */
export const FILLER_RUN = 32;
const ZEROS = Buffer.alloc(FILLER_RUN, 0);
const ONES = Buffer.alloc(FILLER_RUN, 0xff);

/**
 * A view of a reader that ends at `end` or, from `from` on, at the first run of FILLER_RUN filler bytes, whichever
 * comes first. An LZMA stream without an end marker gives no sign where it stops: fed the padding after it, the
 * decoder turns zeros into endless literals and 0xFF into garbage. Cutting its input at the padding makes the
 * stream end where it really does. The cut is found while reading, so nothing past the decoder's need is read.
 */
export class FillerBoundedReader implements Reader {
  /** Where the filler run starts, once one has been seen. */
  filler: number | undefined;
  private limit: number;

  constructor(
    private readonly inner: Reader,
    private readonly from: number,
    end = inner.size,
  ) {
    this.limit = Math.min(end, inner.size);
  }

  get path(): string {
    return this.inner.path;
  }

  get size(): number {
    return this.limit;
  }

  async read(offset: number, length: number): Promise<Buffer> {
    const end = Math.min(offset + length, this.limit);
    if (offset >= end) return Buffer.alloc(0);
    // Read a run's length ahead so a run that starts in this block but ends after it is seen now.
    const data = await this.inner.read(offset, end - offset + FILLER_RUN);
    const searchFrom = Math.max(0, this.from - offset);
    const cut = firstRun(data, searchFrom);
    if (cut !== -1 && cut < end - offset) {
      this.filler = offset + cut;
      this.limit = offset + cut;
      return data.subarray(0, cut);
    }
    return data.subarray(0, end - offset);
  }

  async readExact(offset: number, length: number): Promise<Buffer> {
    const data = await this.read(offset, length);
    if (data.length !== length) throw new FormatError(`truncated: wanted ${length} bytes at offset ${offset}, stream ends at ${this.limit}`);
    return data;
  }

  stream(): Readable {
    throw new Error('FillerBoundedReader is read through read() only');
  }
}

function firstRun(data: Buffer, from: number): number {
  const zeros = data.indexOf(ZEROS, from);
  const ones = data.indexOf(ONES, from);
  if (zeros === -1) return ones;
  if (ones === -1) return zeros;
  return Math.min(zeros, ones);
}

/**
 * A reader over `prefix` + bytes [from, to) of `inner` + `zeros` zero bytes: how a stream is given to liblzma's
 * LZMA-alone decoder behind a header it never had (a size we measured), with the zero bytes a stream may still need
 * after its cut (the range coder's last flushed bytes are often zeros and merge into zero padding).
 */
export class SplicedReader implements Reader {
  readonly size: number;

  constructor(
    private readonly prefix: Buffer,
    private readonly inner: Reader,
    private readonly from: number,
    private readonly to: number,
    zeros: number,
  ) {
    this.size = prefix.length + (to - from) + zeros;
  }

  get path(): string {
    return this.inner.path;
  }

  async read(offset: number, length: number): Promise<Buffer> {
    const end = Math.min(offset + length, this.size);
    const parts: Buffer[] = [];
    const innerLength = this.to - this.from;
    for (let at = offset; at < end; ) {
      if (at < this.prefix.length) {
        const piece = this.prefix.subarray(at, Math.min(end, this.prefix.length));
        parts.push(piece);
        at += piece.length;
      } else if (at < this.prefix.length + innerLength) {
        const innerAt = at - this.prefix.length;
        const piece = await this.inner.read(this.from + innerAt, Math.min(end - at, innerLength - innerAt));
        if (piece.length === 0) break;
        parts.push(piece);
        at += piece.length;
      } else {
        parts.push(Buffer.alloc(end - at));
        at = end;
      }
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  async readExact(offset: number, length: number): Promise<Buffer> {
    const data = await this.read(offset, length);
    if (data.length !== length) throw new FormatError(`truncated: wanted ${length} bytes at offset ${offset}`);
    return data;
  }

  stream(): Readable {
    throw new Error('SplicedReader is read through read() only');
  }
}

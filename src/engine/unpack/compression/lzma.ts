// LZMA-alone (.lzma, "LZMA_Alone"): 13-byte header (properties byte, dictionary size, 64-bit uncompressed size
// or -1 when unknown and the stream carries an end marker) followed by the range-coded stream, whose first byte
// is always 0. The header has no magic, so candidates are the common properties bytes followed by a dictionary
// of at least 64 KiB, and must pass plausibility checks before anything is decoded.
import { FormatError, type ChunkContext, type ChunkInfo, type Handler, type Reader } from '../handler.js';
import { lzma, parseLzmaPropsByte } from '../codecs.js';
import { struct } from '../struct.js';
import { countOnly, decodeRange, payload } from './decode-stream.js';
import { lzmaDecoder } from './lzma-stream.js';
import { payloadName } from './payload-name.js';

const Header = struct('le', { props: 'u8', dictSize: 'u32', sizeLow: 'u32', sizeHigh: 'u32' });
/** lc=3 lp=0 pb=2 (the default), lc=1 lp=2 pb=2 (OpenWrt MIPS kernels), lc=4 lp=0 pb=2, lc=2 lp=1 pb=2. */
const COMMON_PROPS = [0x5d, 0x6d, 0x5e, 0x65];
const MAX_SIZE = 2 ** 36;

export interface LzmaHeader {
  props: number;
  dictSize: number;
  /** Uncompressed size, or undefined when the header says unknown (-1). */
  size?: number;
}

/** Parses and sanity-checks an LZMA-alone header; null when it is not plausible. */
export function parseLzmaAloneHeader(head: Buffer): LzmaHeader | null {
  if (head.length < Header.size + 1) return null;
  const h = Header.parse(head);
  const props = parseLzmaPropsByte(h.props, h.dictSize);
  if (!props || props.lc + props.lp > 4) return null;
  // Dictionary: 4 KiB .. 1.5 GiB, and a power of two or 2^n + 2^(n-1), as every encoder writes it.
  const d = h.dictSize;
  if (d < 4096 || d > 1536 * 1024 * 1024) return null;
  const top = 2 ** Math.floor(Math.log2(d));
  if (d !== top && d !== top + top / 2) return null;
  const unknown = h.sizeLow === 0xffffffff && h.sizeHigh === 0xffffffff;
  const size = unknown ? undefined : h.sizeHigh * 2 ** 32 + h.sizeLow;
  if (size !== undefined && (size === 0 || size > MAX_SIZE)) return null;
  if (head[Header.size] !== 0) return null; // the range coder's first byte is always 0
  return { props: h.props, dictSize: d, size };
}

function decode(reader: Reader, start: number, signal?: AbortSignal): AsyncGenerator<Buffer, number> {
  return decodeRange('lzma', reader, start, lzmaDecoder(lzma().createStream('aloneDecoder', {})), signal);
}

/** Vendor streams with an unknown size and no end marker: decode what decodes, stop where it breaks. */
const VENDOR_MIN_OUTPUT = 4096;

async function* tolerant(reader: Reader, start: number, signal?: AbortSignal): AsyncGenerator<Buffer, number> {
  // Small output buffers: what the decoder holds back when it fails is lost.
  const decoder = lzmaDecoder(lzma().createStream('aloneDecoder', { bufsize: 4096 }));
  const blocks = decodeRange('lzma', reader, start, decoder, signal);
  let size = 0;
  for (;;) {
    let next: IteratorResult<Buffer, number>;
    try {
      next = await blocks.next();
    } catch (error) {
      if (!(error instanceof FormatError) || size < VENDOR_MIN_OUTPUT) throw error;
      // The stream's real end is unknowable: it ends where the decoder stopped making sense of it.
      return Math.min(reader.size - start, Math.max(decoder.consumed(), 14));
    }
    if (next.done) return next.value;
    size += next.value.length;
    yield next.value;
  }
}

export const lzmaHandler: Handler = {
  id: 'lzma',
  kind: 'compression',
  doc: {
    title: 'LZMA-alone (.lzma)',
    references: ['LZMA SDK lzma.txt (LZMA_Alone header)', 'liblzma alone_decoder via lzma-native'],
    limitations: [
      'Vendor streams with an unknown size and no end marker are decoded up to where decoding breaks (a warning says so); their end is approximate.',
      'Headers without the 8-byte size field are not recognised.',
    ],
  },
  magics: COMMON_PROPS.map((p) => ({ bytes: Buffer.from([p, 0x00, 0x00]) })),
  confidence: 40,
  async chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo | null> {
    const header = parseLzmaAloneHeader(await reader.read(start, Header.size + 1));
    if (!header) return null;
    try {
      const counted = await countOnly('lzma', decode(reader, start, ctx?.signal), ctx);
      if (!counted) return null;
      return { start, end: start + counted.result, meta: { ...header, size: counted.size } };
    } catch (error) {
      if (!(error instanceof FormatError) || header.size !== undefined) throw error;
      const counted = await countOnly('lzma', tolerant(reader, start, ctx?.signal), ctx);
      if (!counted) return null;
      return { start, end: start + counted.result, meta: { ...header, size: counted.size, noEndMarker: true } };
    }
  },
  async extract(reader, chunk, sink) {
    const vendor = chunk.meta?.noEndMarker === true;
    if (vendor) sink.problem('warning', `lzma: stream at ${chunk.start} has an unknown size and no end marker; decoded up to where it breaks`, chunk.start);
    const blocks = vendor ? tolerant(reader, chunk.start, sink.signal) : decode(reader, chunk.start, sink.signal);
    await sink.file(payloadName(reader.path, ['.lzma', '.lz']), payload(blocks));
  },
};

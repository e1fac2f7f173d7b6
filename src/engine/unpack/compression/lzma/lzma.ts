// LZMA-alone (.lzma, "LZMA_Alone") and its vendor variants (variants.ts): a 13-byte header (properties byte,
// dictionary size, 64-bit uncompressed size or -1) or a 5-byte one without the size, followed by the range-coded
// stream, whose first byte is always 0. The header has no magic, so candidates are the common properties bytes
// followed by a dictionary of at least 64 KiB, and must pass plausibility checks before anything is decoded;
// then the stream must decode (random or otherwise compressed bytes break within a few dozen bytes).
import { FormatError } from '../../../format-error.js';
import type { ChunkContext, ChunkInfo, Handler, Reader, Sink } from '../../handler.js';
import { parseLzmaPropsByte } from '../../codecs/blocks.js';
import { probeLzma } from '../../codecs/lzma.js';
import { breaksBefore } from './early-break.js';
import { countOnly, payload, QUIET_BELOW } from '../decode-stream.js';
import { countKeeping, takeKept } from '../kept-decode.js';
import { decodeMeasured, decodeSized, decodeUnsized, measureBroken, measureUnsized, parseLzmaHeaders, type LzmaHeader, type UnsizedEnd } from './variants.js';
import { payloadName } from '../payload-name.js';

export { parseLzmaAloneHeader, parseLzmaHeaders } from './variants.js';

/** lc=3 lp=0 pb=2 (the default), lc=1 lp=2 pb=2 (OpenWrt MIPS kernels), lc=4 lp=0 pb=2, lc=2 lp=1 pb=2. */
const COMMON_PROPS = [0x5d, 0x6d, 0x5e, 0x65];

type LzmaMeta = LzmaHeader & {
  /**
   * 'sized': decoded to the declared size; 'unsized': to its end marker, or to where its input ends when that could
   * not be measured; 'measured': no marker, size measured (measureUnsized) and decoded to it.
   */
  mode: 'sized' | 'unsized' | 'measured';
  /** Bytes decoded: the stream's size, except in an approximate stream (a few KiB less than extraction writes). */
  decoded: number;
  endMarker?: boolean;
  cut?: UnsizedEnd['cut'];
  /** 'measured': where the decoder's input was cut (zero bytes follow). */
  inputEnd?: number;
};

async function probe(reader: Reader, start: number, header: LzmaHeader, ctx?: ChunkContext): Promise<ChunkInfo<LzmaMeta> | null> {
  if (header.size !== undefined) {
    try {
      // The extraction decodes the same input to the same declared size: it writes the blocks kept here.
      const counted = await countKeeping('lzma', decodeSized(reader, start, undefined, ctx?.signal), ctx);
      if (counted) {
        const info: ChunkInfo<LzmaMeta> = { start, end: start + counted.result, meta: { ...header, mode: 'sized', decoded: counted.size } satisfies LzmaMeta };
        counted.attach(info);
        return info;
      }
    } catch (error) {
      if (!(error instanceof FormatError)) throw error;
      // The declared size is wrong, or the stream carries an end marker too: decode it as unsized below.
    }
  }
  try {
    const counted = await countOnly('lzma', decodeUnsized(reader, start, header, undefined, ctx?.signal), ctx);
    if (!counted) return null;
    const { end, endMarker, cut } = counted.result;
    if (cut) {
      const measured = cut === 'decoder-break' ? await measureBroken(reader, start, header, end, counted.size, ctx) : await measureUnsized(reader, start, header, end, counted.size, ctx);
      if (measured) {
        // Decoded from [stream, inputEnd) plus zeros: the cut, or for a stream that ran into other data its own end.
        const inputEnd = cut === 'decoder-break' ? measured.end : end;
        return { start, end: measured.end, meta: { ...header, mode: 'measured', decoded: measured.size, endMarker, cut, inputEnd } satisfies LzmaMeta };
      }
    }
    return { start, end, meta: { ...header, mode: 'unsized', decoded: counted.size, endMarker, cut } satisfies LzmaMeta };
  } catch (error) {
    // The header without a size field is a weak signature: a stream that breaks early is not reported as corrupt.
    if (header.layout === 'no-size' && error instanceof FormatError) return null;
    throw error;
  }
}

/** Input decoded synchronously to weed out false candidates before a streaming probe. */
const PROBE_BYTES = 4096;
/** A probe needs no large dictionary; a header asking for one falls back to the raw probe with a small window. */
const PROBE_MEMLIMIT = 16 * 1024 * 1024;

/**
 * A header is worth a streaming probe unless its first bytes break the decoder before QUIET_BELOW bytes come out
 * (what the streaming probe would also reject, only after thread-pool round trips and stream set-up). A stream
 * declaring fewer bytes than that is not reported either: such "streams" are coincidences in binaries (e.g. 6
 * bytes of a locale catalogue behind a plausible 13-byte header).
 */
function survivesProbe(head: Buffer, header: LzmaHeader): boolean {
  const passes = ({ produced, broke }: { produced: number; broke: boolean }) => !broke || produced >= QUIET_BELOW;
  if (header.size !== undefined && header.size < QUIET_BELOW) return false;
  // what liblzma would break on before QUIET_BELOW bytes, found without it (both probes below decode this stream)
  const lzma1 = parseLzmaPropsByte(header.props, header.dictSize);
  if (lzma1 && breaksBefore(head.subarray(header.headerSize), lzma1, QUIET_BELOW)) return false;
  if (header.size !== undefined) {
    // The LZMA-alone decoder stops at the declared size, so a short stream followed by other data passes.
    if (passes(probeLzma({ kind: 'alone', memlimit: PROBE_MEMLIMIT }, head, QUIET_BELOW))) return true;
  }
  // No size, or a size that lies: the stream itself, with a small window (only its first bytes are decoded).
  const props = parseLzmaPropsByte(header.props, Math.min(header.dictSize, 1 << 20));
  return props !== null && passes(probeLzma({ kind: 'raw', props }, head.subarray(header.headerSize), QUIET_BELOW));
}

function warn(sink: Sink, chunk: ChunkInfo<LzmaMeta>, meta: LzmaMeta): void {
  const at = `lzma: stream at ${chunk.start}`;
  if (meta.mode === 'sized') return;
  if (meta.size !== undefined && !(meta.endMarker && meta.decoded === meta.size)) {
    sink.problem('warning', `${at} declares ${meta.size} bytes but ${meta.endMarker ? `ends with its end marker after ${meta.decoded}` : 'does not decode to that size'}; decoded as a stream of unknown size`, chunk.start);
  }
  if (meta.endMarker) return;
  const why = {
    filler: 'ends where padding starts',
    'end-of-data': meta.mode === 'measured' ? 'ends at the end of the data' : 'ends at the end of the data (it may be truncated)',
    'decoder-break': meta.mode === 'measured' ? 'ends where its range coder finished, before the data that follows it' : 'was decoded up to where it breaks; its end and last bytes are approximate',
  }[meta.cut ?? 'decoder-break'];
  sink.problem('warning', `${at} has ${meta.size === undefined ? 'an unknown size and ' : ''}no end marker; it ${why}`, chunk.start);
}

export const lzmaHandler: Handler<LzmaMeta> = {
  id: 'lzma',
  kind: 'compression',
  doc: {
    title: 'LZMA-alone (.lzma) and vendor variants',
    references: ['LZMA SDK lzma.txt (LZMA_Alone header)', 'liblzma alone and raw LZMA1 decoders via lzma-native', 'unblob and binwalk LZMA signatures'],
    limitations: [
      'A stream without an end marker whose size is unknown or wrong is measured: cut at padding (a run of 0x00 or 0xFF) or the end of the data, or, followed by other data, ended where its range coder last finished (a JavaScript LZMA decoder finds it, liblzma confirms it). When that fails its end and last bytes are approximate, and a warning says so.',
      'Only the common properties bytes (0x5d, 0x6d, 0x5e, 0x65) with a dictionary of at least 64 KiB are looked for.',
    ],
  },
  magics: COMMON_PROPS.map((p) => ({ bytes: Buffer.from([p, 0x00, 0x00]) })),
  confidence: 40,
  async chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo<LzmaMeta> | null> {
    const head = await reader.read(start, PROBE_BYTES);
    const headers = parseLzmaHeaders(head).filter((header) => survivesProbe(head, header));
    let failure: unknown;
    for (const header of headers) {
      try {
        const found = await probe(reader, start, header, ctx);
        if (found) return found;
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        failure ??= error;
      }
    }
    if (failure) throw failure;
    return null;
  },
  async extract(reader, chunk, sink) {
    const meta = chunk.meta!;
    warn(sink, chunk, meta);
    const name = payloadName(reader.path, ['.lzma', '.lz']);
    const decoded = meta.mode === 'sized' ? takeKept(chunk) : undefined;
    if (decoded) await sink.file(name, decoded);
    else if (meta.mode === 'sized') await sink.file(name, payload(decodeSized(reader, chunk.start, chunk.end, sink.signal)));
    else if (meta.mode === 'measured') await sink.file(name, payload(decodeMeasured(reader, chunk.start, meta, meta.decoded, meta.inputEnd!, sink.signal)));
    else await sink.file(name, payload(decodeUnsized(reader, chunk.start, meta, chunk.end, sink.signal)));
  },
};

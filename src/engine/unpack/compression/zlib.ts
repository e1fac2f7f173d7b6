// zlib (RFC 1950): a 2-byte header (CMF, FLG with a check value), a deflate stream and an Adler-32 trailer that
// node's inflate verifies. The magic is short, so a candidate must pass the header check, decode, and match
// its checksum; its end is the input the decoder consumed.
import zlib from 'node:zlib';
import type { ChunkContext, ChunkInfo, Handler, Reader } from '../handler.js';
import { countOnly, decodeRange, payload } from './decode-stream.js';
import { payloadName } from './payload-name.js';

function plausibleHeader(cmf: number, flg: number): boolean {
  // Method 8 (deflate), window <= 32 KiB, no preset dictionary, header check multiple of 31.
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && (flg & 0x20) === 0 && (cmf * 256 + flg) % 31 === 0;
}

/** Bytes a cheap synchronous probe inflates before a candidate earns a full streaming decode. */
const PROBE_BYTES = 512;

/**
 * True when the first bytes inflate without error (a short stream may end inside them). Random bytes after a
 * two-byte zlib header break within a few dozen bytes, so this rejects nearly every false candidate for the
 * cost of one small synchronous inflate instead of a stream and its round trips.
 */
function probeInflates(head: Buffer): boolean {
  // Most probes fail, and the error's stack trace would cost more than the probe.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    zlib.inflateSync(head, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: 64 * PROBE_BYTES });
    return true;
  } catch (error) {
    // Output beyond the probe's cap still means the data inflates.
    return (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function decode(reader: Reader, start: number, signal?: AbortSignal): AsyncGenerator<Buffer, number> {
  const inflater = zlib.createInflate();
  return decodeRange('zlib', reader, start, { stream: inflater, consumed: () => inflater.bytesWritten }, signal);
}

export const zlibHandler: Handler = {
  id: 'zlib',
  kind: 'compression',
  doc: { title: 'zlib stream', references: ['RFC 1950 ZLIB Compressed Data Format', 'RFC 1951 DEFLATE'] },
  magics: [0x01, 0x5e, 0x9c, 0xda].map((flg) => ({ bytes: Buffer.from([0x78, flg]) })),
  confidence: 30,
  async chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo | null> {
    const head = await reader.read(start, PROBE_BYTES);
    if (head.length < 2 || !plausibleHeader(head[0]!, head[1]!) || !probeInflates(head)) return null;
    const counted = await countOnly('zlib', decode(reader, start, ctx?.signal), ctx);
    if (!counted) return null;
    return { start, end: start + counted.result, meta: { size: counted.size } };
  },
  async extract(reader, chunk, sink) {
    await sink.file(payloadName(reader.path, ['.zlib', '.zz']), payload(decode(reader, chunk.start, sink.signal)));
  },
};

// zlib (RFC 1950): a 2-byte header (CMF, FLG with a check value), a deflate stream and an Adler-32 trailer that
// node's inflate verifies. The magic is short, so a candidate must pass the header check, a check of the start
// of its body, a small inflate, a full decode and its checksum; its end is the input the decoder consumed.
import zlib from 'node:zlib';
import type { ChunkContext, ChunkInfo, Handler, Reader } from '../../handler.js';
import { countOnly, decodeRange, payload } from '../decode-stream.js';
import { plausibleZlibBody } from './probe.js';
import { payloadName } from '../payload-name.js';

function plausibleHeader(cmf: number, flg: number): boolean {
  // Method 8 (deflate), window <= 32 KiB, no preset dictionary, header check multiple of 31.
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && (flg & 0x20) === 0 && (cmf * 256 + flg) % 31 === 0;
}

/**
 * x86-64 code is full of 48 89 and 48 C7 (REX.W MOV), which are also the headers of a 4 KiB window at levels 6-9:
 * about one byte pair in a hundred of a 64-bit binary. Searched for, they would cost more than every other header
 * together, for a window size almost nothing uses.
 */
const X86_64_MOV = [0x4889, 0x48c7];

/**
 * The headers searched for: CMF 0x08..0x78 (windows of 2^8..2^15 bytes; zlib writes 0x78 unless asked for a
 * smaller window) with each FLG that has no preset dictionary and passes the check, but the two above.
 */
function headers(): Buffer[] {
  const out: Buffer[] = [];
  for (let cmf = 0x08; cmf <= 0x78; cmf += 0x10) {
    for (let flg = 0; flg < 256; flg++) {
      if (plausibleHeader(cmf, flg) && !X86_64_MOV.includes(cmf * 256 + flg)) out.push(Buffer.from([cmf, flg]));
    }
  }
  return out;
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
  doc: {
    title: 'zlib stream',
    references: ['RFC 1950 ZLIB Compressed Data Format', 'RFC 1951 DEFLATE'],
    limitations: ['Streams with a 4 KiB window at levels 6-9 (headers 48 89 and 48 C7, also x86-64 MOV instructions) are not searched for'],
  },
  magics: headers().map((bytes) => ({ bytes })),
  confidence: 30,
  async chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo | null> {
    const head = await reader.read(start, PROBE_BYTES);
    if (head.length < 2 || !plausibleHeader(head[0]!, head[1]!)) return null;
    if (!plausibleZlibBody(head.subarray(2)) || !probeInflates(head)) return null;
    const counted = await countOnly('zlib', decode(reader, start, ctx?.signal), ctx);
    if (!counted) return null;
    return { start, end: start + counted.result, meta: { size: counted.size } };
  },
  async extract(reader, chunk, sink) {
    await sink.file(payloadName(reader.path, ['.zlib', '.zz']), payload(decode(reader, chunk.start, sink.signal)));
  },
};

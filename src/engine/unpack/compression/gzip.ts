// gzip (RFC 1952): one or more members, each a header, a raw deflate stream and a CRC-32 + size trailer. The
// exact end comes from inflating in count-only mode (node's inflate reports the input it consumed); the
// trailer's CRC must match, so random bytes that happen to start with 1f 8b 08 are rejected.
import zlib from 'node:zlib';
import { FormatError } from '../../format-error.js';
import type { ChunkContext, ChunkInfo, Handler, Reader } from '../handler.js';
import { struct } from '../struct.js';
import { decodeRange, payload } from './decode-stream.js';
import { countKeeping, takeKept } from './kept-decode.js';
import { payloadName } from './payload-name.js';

const Header = struct('le', { magic: 'u16', method: 'u8', flags: 'u8', mtime: 'u32', xfl: 'u8', os: 'u8' });
const FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;
const MAX_FIELD = 1024;

interface MemberHeader {
  dataStart: number;
  name?: string;
  mtime: number;
}

/** Parses a member header at `at`; null when it is not a plausible gzip header. */
async function readHeader(reader: Reader, at: number): Promise<MemberHeader | null> {
  const head = await reader.read(at, Header.size + 2 + 2 * MAX_FIELD);
  if (head.length < Header.size) return null;
  const h = Header.parse(head);
  if (h.magic !== 0x8b1f || h.method !== 8 || (h.flags & 0xe0) !== 0) return null;
  let pos = Header.size;
  if (h.flags & FEXTRA) {
    if (pos + 2 > head.length) return null;
    const xlen = head.readUInt16LE(pos);
    pos += 2 + xlen;
  }
  let name: string | undefined;
  for (const flag of [FNAME, FCOMMENT]) {
    if (!(h.flags & flag)) continue;
    const nul = head.indexOf(0, pos);
    if (nul === -1) return null; // unterminated or absurdly long field
    if (flag === FNAME) name = head.subarray(pos, nul).toString('latin1');
    pos = nul + 1;
  }
  if (h.flags & FHCRC) pos += 2;
  if (at + pos > reader.size) return null;
  return { dataStart: at + pos, name, mtime: h.mtime };
}

/** Decodes every member from `start`; yields the payload and returns the chunk's end. */
async function* members(reader: Reader, start: number, first: MemberHeader, signal?: AbortSignal): AsyncGenerator<Buffer, number> {
  let header: MemberHeader | null = first;
  let at = start;
  while (header) {
    const inflater = zlib.createInflateRaw();
    let crc = 0;
    let size = 0;
    const blocks = decodeRange('gzip', reader, header.dataStart, { stream: inflater, consumed: () => inflater.bytesWritten }, signal);
    let next = await blocks.next();
    while (!next.done) {
      crc = zlib.crc32(next.value, crc);
      size += next.value.length;
      yield next.value;
      next = await blocks.next();
    }
    const trailerAt = header.dataStart + next.value;
    const trailer = await reader.read(trailerAt, 8);
    if (trailer.length < 8) throw new FormatError('gzip: truncated trailer');
    if (trailer.readUInt32LE(0) !== crc >>> 0) throw new FormatError(`gzip: CRC mismatch in member at ${at}`);
    if (trailer.readUInt32LE(4) !== size % 2 ** 32) throw new FormatError(`gzip: size mismatch in member at ${at}`);
    at = trailerAt + 8;
    header = await readHeader(reader, at);
  }
  return at;
}

export const gzipHandler: Handler = {
  id: 'gzip',
  kind: 'compression',
  doc: {
    title: 'gzip',
    references: ['RFC 1952 GZIP file format specification', 'RFC 1951 DEFLATE'],
    limitations: ['Concatenated members become one payload, as gunzip does.'],
  },
  magics: [{ bytes: Buffer.from([0x1f, 0x8b, 0x08]) }],
  confidence: 60,
  async chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo | null> {
    const header = await readHeader(reader, start);
    if (!header) return null;
    const counted = await countKeeping('gzip', members(reader, start, header, ctx?.signal), ctx);
    if (!counted) return null;
    const { result: end, size } = counted;
    const info = { start, end, meta: { name: header.name, mtime: header.mtime, size } };
    counted.attach(info);
    return info;
  },
  async extract(reader, chunk, sink) {
    const header = await readHeader(reader, chunk.start);
    if (!header) throw new FormatError('gzip: header vanished');
    const name = payloadName(reader.path, ['.gz', '.gzip', '.z'], header.name);
    // the same decode as the probe's: its kept blocks when there are
    await sink.file(name, takeKept(chunk) ?? payload(members(reader, chunk.start, header, sink.signal)), { mtime: header.mtime || undefined });
  },
};

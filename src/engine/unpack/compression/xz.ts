// xz (.xz container): stream header with a CRC-checked flags field, blocks, index and footer. liblzma (through
// lzma-native) decodes one stream in count-only mode; where it stops is the chunk's end. Concatenated streams
// are separate chunks (the driver finds the next header right after).
import zlib from 'node:zlib';
import type { ChunkContext, ChunkInfo, Handler, Reader } from '../handler.js';
import { payload } from './decode-stream.js';
import { countKeeping, takeKept } from './kept-decode.js';
import { decodeLzmaStream } from './lzma-stream-decode.js';
import { payloadName } from './payload-name.js';

const MAGIC = Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]);

function decode(reader: Reader, start: number, signal?: AbortSignal): AsyncGenerator<Buffer, number> {
  return decodeLzmaStream('xz', { kind: 'xz', single: true }, reader, start, signal);
}

export const xzHandler: Handler = {
  id: 'xz',
  kind: 'compression',
  doc: { title: 'xz', references: ['The .xz File Format 1.2.1 (tukaani.org)', 'liblzma via lzma-native'] },
  magics: [{ bytes: MAGIC }],
  confidence: 70,
  async chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo | null> {
    const header = await reader.read(start, 12);
    if (header.length < 12) return null;
    // Stream flags: first byte 0, check type <= 0x0F, CRC-32 of the two flag bytes follows.
    if (header[6] !== 0 || (header[7]! & 0xf0) !== 0) return null;
    if (zlib.crc32(header.subarray(6, 8)) >>> 0 !== header.readUInt32LE(8)) return null;
    const counted = await countKeeping('xz', decode(reader, start, ctx?.signal), ctx);
    if (!counted) return null;
    const info = { start, end: start + counted.result, meta: { size: counted.size } };
    counted.attach(info);
    return info;
  },
  async extract(reader, chunk, sink) {
    // the same decode as the probe's: its kept blocks when there are
    await sink.file(payloadName(reader.path, ['.xz']), takeKept(chunk) ?? payload(decode(reader, chunk.start, sink.signal)));
  },
};

// Zstandard frames (RFC 8878): the frame's extent is read from its header and block headers (each block states
// its type and size), then the frame is decoded in count-only mode (zstd-stream.ts, fzstd's streaming decoder) to validate
// it. Skippable frames are not payloads and are left to the gap report.
import { FormatError } from '../../format-error.js';
import type { ChunkContext, ChunkInfo, Handler, Reader } from '../handler.js';
import { countOnly, payload } from './decode-stream.js';
import { payloadName } from './payload-name.js';
import { zstdBlocks } from './zstd-stream.js';

const MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);
const MAX_BLOCK = 128 * 1024;

/** Walks the frame header and block headers; returns the frame's end or null when the header is implausible. */
async function frameEnd(reader: Reader, start: number): Promise<number | null> {
  const head = await reader.read(start, 18);
  if (head.length < 6 || !head.subarray(0, 4).equals(MAGIC)) return null;
  const fhd = head[4]!;
  if (fhd & 0x08) return null; // reserved bit
  const single = (fhd >> 5) & 1;
  const fcsFlag = fhd >> 6;
  const dictBytes = [0, 1, 2, 4][fhd & 3]!;
  const fcsBytes = [single ? 1 : 0, 2, 4, 8][fcsFlag]!;
  let at = start + 5 + (single ? 0 : 1) + dictBytes + fcsBytes;
  if (!single) {
    const exponent = head[5]! >> 3;
    if (exponent > 31 - 10) return null; // window above 2 GiB: not a real frame
  }
  for (;;) {
    const bh = await reader.read(at, 3);
    if (bh.length < 3) throw new FormatError('zstd: truncated block header');
    const header = bh[0]! | (bh[1]! << 8) | (bh[2]! << 16);
    const last = header & 1;
    const type = (header >> 1) & 3;
    const size = header >>> 3;
    if (type === 3) throw new FormatError('zstd: reserved block type');
    if (type !== 1 && size > MAX_BLOCK) throw new FormatError(`zstd: block of ${size} bytes exceeds 128 KiB`);
    at += 3 + (type === 1 ? 1 : size);
    if (at > reader.size) throw new FormatError('zstd: truncated frame');
    if (last) break;
  }
  if (fhd & 0x04) at += 4; // content checksum
  if (at > reader.size) throw new FormatError('zstd: truncated checksum');
  return at;
}

export const zstdHandler: Handler = {
  id: 'zstd',
  kind: 'compression',
  doc: { title: 'Zstandard', references: ['RFC 8878 Zstandard Compression', 'fzstd (streaming decoder)'] },
  magics: [{ bytes: MAGIC }],
  confidence: 70,
  async chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo | null> {
    const end = await frameEnd(reader, start);
    if (end === null) return null;
    const counted = await countOnly('zstd', zstdBlocks(reader, start, end, ctx?.signal), ctx);
    if (!counted) return null;
    return { start, end, meta: { size: counted.size } };
  },
  async extract(reader, chunk, sink) {
    await sink.file(payloadName(reader.path, ['.zst', '.zstd']), payload(zstdBlocks(reader, chunk.start, chunk.end, sink.signal)));
  },
};

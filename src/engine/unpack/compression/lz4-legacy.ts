// LZ4 legacy frame (magic 0x184C2102, lz4 -l and Linux kernel images): a sequence of independent blocks, each a
// 32-bit compressed size and data decoding to at most 8 MiB, with no end mark. The frame ends at the end of the
// file, before another frame's magic, or before the first size word that cannot start a valid block (e.g. the
// kernel's appended uncompressed size).
import { FormatError } from '../../format-error.js';
import type { ChunkContext, ChunkInfo, Handler, Reader } from '../handler.js';
import { countOnly, payload } from './decode-stream.js';
import { lz4DecodeInto } from '../codecs/lz4-block.js';
import { payloadName } from './payload-name.js';

const MAGIC = Buffer.from([0x02, 0x21, 0x4c, 0x18]);
const BLOCK_OUT = 8 * 1024 * 1024;
/** LZ4_compressBound(8 MiB). */
const BLOCK_IN = BLOCK_OUT + Math.floor(BLOCK_OUT / 255) + 16;

async function* legacyBlocks(reader: Reader, start: number, signal?: AbortSignal): AsyncGenerator<Buffer, number> {
  let at = start + 4;
  const out = Buffer.allocUnsafe(BLOCK_OUT);
  for (let index = 0; ; index++) {
    signal?.throwIfAborted();
    const word = await reader.read(at, 4);
    if (word.length < 4) break;
    const size = word.readUInt32LE(0);
    if (size === 0 || size > BLOCK_IN || at + 4 + size > reader.size || word.equals(MAGIC)) {
      if (index === 0 && size <= BLOCK_IN && at + 4 + size > reader.size) throw new FormatError('lz4-legacy: truncated first block');
      if (index === 0) throw new FormatError(`lz4-legacy: invalid first block size ${size}`);
      break;
    }
    let end: number;
    try {
      end = lz4DecodeInto(await reader.read(at + 4, size), out, 0);
    } catch (error) {
      if (index === 0) throw error;
      break; // trailing data that is not a block ends the frame
    }
    at += 4 + size;
    yield Buffer.from(out.subarray(0, end));
  }
  return at;
}

export const lz4LegacyHandler: Handler = {
  id: 'lz4-legacy',
  kind: 'compression',
  doc: { title: 'LZ4 legacy frame', references: ['LZ4 Frame Format Description, "Legacy frame"', 'lz4 -l'] },
  magics: [{ bytes: MAGIC }],
  confidence: 60,
  async chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo | null> {
    const counted = await countOnly('lz4-legacy', legacyBlocks(reader, start, ctx?.signal), ctx);
    if (!counted) return null;
    return { start, end: counted.result, meta: { size: counted.size } };
  },
  async extract(reader, chunk, sink) {
    await sink.file(payloadName(reader.path, ['.lz4']), payload(legacyBlocks(reader, chunk.start, sink.signal)));
  },
};

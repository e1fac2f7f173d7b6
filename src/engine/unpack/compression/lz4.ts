// LZ4 frame format (magic 0x184D2204): descriptor, blocks (size word, high bit = stored), end mark, optional
// content checksum; blocks may be linked (refer to the previous 64 KiB). The extent follows from the block
// size words; every block is decoded to validate it.
import { FormatError } from '../../format-error.js';
import type { ChunkContext, ChunkInfo, Handler, Reader } from '../handler.js';
import { countOnly, payload } from './decode-stream.js';
import { lz4DecodeInto } from '../codecs/lz4-block.js';
import { payloadName } from './payload-name.js';

const MAGIC = Buffer.from([0x04, 0x22, 0x4d, 0x18]);
const BLOCK_MAX = [0, 0, 0, 0, 64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024];
const DICT = 64 * 1024;

interface Descriptor {
  blockMax: number;
  independent: boolean;
  blockChecksum: boolean;
  contentChecksum: boolean;
  contentSize?: number;
  dataStart: number;
}

async function descriptor(reader: Reader, start: number): Promise<Descriptor | null> {
  const head = await reader.read(start, 4 + 2 + 8 + 4 + 1);
  if (head.length < 7 || !head.subarray(0, 4).equals(MAGIC)) return null;
  const flg = head[4]!;
  const bd = head[5]!;
  if (flg >> 6 !== 1 || flg & 0x02 || bd & 0x8f) return null;
  const blockMax = BLOCK_MAX[(bd >> 4) & 7]!;
  if (!blockMax) return null;
  let at = 6;
  let contentSize: number | undefined;
  if (flg & 0x08) {
    if (head.length < at + 8) return null;
    contentSize = Number(head.readBigUInt64LE(at));
    at += 8;
  }
  if (flg & 0x01) at += 4;
  at += 1; // header checksum
  return {
    blockMax,
    independent: (flg & 0x20) !== 0,
    blockChecksum: (flg & 0x10) !== 0,
    contentChecksum: (flg & 0x04) !== 0,
    contentSize,
    dataStart: start + at,
  };
}

async function* frameBlocks(reader: Reader, d: Descriptor, signal?: AbortSignal): AsyncGenerator<Buffer, number> {
  let at = d.dataStart;
  let window = Buffer.allocUnsafe(DICT + d.blockMax);
  let dictLength = 0;
  for (;;) {
    signal?.throwIfAborted();
    const word = await reader.read(at, 4);
    if (word.length < 4) throw new FormatError('lz4: truncated block size');
    const raw = word.readUInt32LE(0);
    at += 4;
    if (raw === 0) break;
    const stored = (raw & 0x80000000) !== 0;
    const size = raw & 0x7fffffff;
    if (size > d.blockMax) throw new FormatError(`lz4: block of ${size} bytes exceeds the frame's ${d.blockMax}`);
    const data = await reader.read(at, size);
    if (data.length < size) throw new FormatError('lz4: truncated block');
    at += size + (d.blockChecksum ? 4 : 0);
    const from = d.independent ? 0 : dictLength;
    let end: number;
    if (stored) {
      data.copy(window, from);
      end = from + size;
    } else {
      end = lz4DecodeInto(data, window, from);
    }
    yield Buffer.from(window.subarray(from, end));
    if (!d.independent) {
      // Keep the last 64 KiB as the next block's dictionary.
      const keep = Math.min(DICT, end);
      const next = Buffer.allocUnsafe(DICT + d.blockMax);
      window.copy(next, 0, end - keep, end);
      window = next;
      dictLength = keep;
    }
  }
  if (d.contentChecksum) at += 4;
  if (at > reader.size) throw new FormatError('lz4: truncated content checksum');
  return at;
}

export const lz4Handler: Handler = {
  id: 'lz4',
  kind: 'compression',
  doc: {
    title: 'LZ4 frame',
    references: ['LZ4 Frame Format Description 1.6.x', 'LZ4 Block Format Description'],
    limitations: ['Header and content checksums (xxHash32) are not verified; decoding validates the blocks.'],
  },
  magics: [{ bytes: MAGIC }],
  confidence: 70,
  async chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo | null> {
    const d = await descriptor(reader, start);
    if (!d) return null;
    const counted = await countOnly('lz4', frameBlocks(reader, d, ctx?.signal), ctx);
    if (!counted) return null;
    return { start, end: counted.result, meta: { size: counted.size, contentSize: d.contentSize } };
  },
  async extract(reader, chunk, sink) {
    const d = await descriptor(reader, chunk.start);
    if (!d) throw new FormatError('lz4: descriptor vanished');
    await sink.file(payloadName(reader.path, ['.lz4']), payload(frameBlocks(reader, d, sink.signal)));
  },
};

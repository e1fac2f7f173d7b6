// bzip2: 'BZh' + block size digit + blocks, each starting with a 48-bit magic, ending with an end-of-stream
// magic and the combined CRC. Decoded by our own streaming decoder (../codecs/bzip2.ts), which finds the exact end.
import type { ChunkContext, ChunkInfo, Handler, Reader } from '../handler.js';
import { bzip2Blocks, isStreamHeader } from '../codecs/bzip2.js';
import { payload } from './decode-stream.js';
import { countKeeping, takeKept } from './kept-decode.js';
import { payloadName } from './payload-name.js';

export const bzip2Handler: Handler = {
  id: 'bzip2',
  kind: 'compression',
  doc: {
    title: 'bzip2',
    references: ['bzip2 1.0.8 source (decompress.c, huffman.c)', 'J. Gilchrist, "bzip2 format specification" (2011)'],
    limitations: ['Randomised blocks (written only by bzip2 0.9.0) are refused.'],
  },
  magics: ['1', '2', '3', '4', '5', '6', '7', '8', '9'].map((d) => ({ bytes: Buffer.from(`BZh${d}1AY&SY`, 'latin1') })),
  confidence: 70,
  async chunk(reader: Reader, start: number, ctx?: ChunkContext): Promise<ChunkInfo | null> {
    if (!isStreamHeader(await reader.read(start, 10))) return null;
    const counted = await countKeeping('bzip2', bzip2Blocks(reader, start, ctx?.signal), ctx);
    if (!counted) return null;
    const info = { start, end: counted.result, meta: { size: counted.size } };
    counted.attach(info);
    return info;
  },
  async extract(reader, chunk, sink) {
    // the same decode as the probe's: its kept blocks when there are
    await sink.file(payloadName(reader.path, ['.bz2', '.bz', '.bzip2']), takeKept(chunk) ?? payload(bzip2Blocks(reader, chunk.start, sink.signal)));
  },
};

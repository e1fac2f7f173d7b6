// Where an LZMA1 stream without an end marker really ends when other data follows it. liblzma only says where it
// broke, some way into the next data; the JavaScript decoder (lzma1-decoder.ts) also watches its range coder: the
// encoder flushes every byte of its low value at the end, so right after the last symbol the decoder's code is
// exactly 0, which mid-stream happens with odds of about 2^-32 per symbol. The last symbol boundary with code 0
// before the decoder breaks is the stream's end. It decodes only to find that point (output is discarded;
// extraction still goes through liblzma), and runs only in that fallback.
import { parseLzmaPropsByte } from '../../codecs/blocks.js';
import type { Reader } from '../../handler.js';
import { Broken, Lzma1Decoder, type ByteInput, type Finished } from './lzma1-decoder.js';

const WINDOW = 64 * 1024;
/** Dictionaries above this are not held (the fallback then stays approximate). */
const MAX_DICT = 64 * 1024 * 1024;

/** No symbol reads more bytes than this: the input is topped up to it before each one. */
const LOOKAHEAD = 512;

class Input implements ByteInput {
  private buf: Buffer = Buffer.alloc(0);
  private bufAt = 0;
  pos: number;

  constructor(
    private readonly reader: Reader,
    start: number,
    private readonly end: number,
  ) {
    this.pos = start;
  }

  /** Whether the next symbol's bytes are buffered (or all that is left is). */
  get ready(): boolean {
    const buffered = this.bufAt + this.buf.length;
    return buffered - this.pos >= LOOKAHEAD || buffered >= this.end;
  }

  async fill(): Promise<void> {
    this.buf = await this.reader.read(this.pos, Math.min(WINDOW, this.end - this.pos));
    this.bufAt = this.pos;
  }

  byte(): number {
    const i = this.pos - this.bufAt;
    if (i >= this.buf.length) throw new Broken('input');
    this.pos++;
    return this.buf[i]!;
  }
}

export type StreamEnd = Finished;

/**
 * Decodes the raw LZMA1 stream at `streamStart` (properties `props`, dictionary `dictSize`) until it breaks or reaches
 * `limit`, and returns the last point where the range coder was finished, or null when there was none. `sizeHint`
 * bounds the history kept when the stream's size is roughly known (past it, only garbage is decoded).
 */
export async function findLzmaEnd(
  reader: Reader,
  streamStart: number,
  props: number,
  dictSize: number,
  limit: number,
  { signal, sizeHint = Infinity }: { signal?: AbortSignal; sizeHint?: number } = {},
): Promise<StreamEnd | null> {
  const p = parseLzmaPropsByte(props, dictSize);
  if (!p) return null;
  const input = new Input(reader, streamStart, limit);
  // No match reaches further back than the output: a stream known to be small needs no larger history.
  const history = Math.min(p.dictSize, Math.max(sizeHint, 4096));
  if (history > MAX_DICT) return null;
  const decoder = new Lzma1Decoder(p, history);
  try {
    await input.fill();
    if (!decoder.start(input)) return null;
    for (;;) {
      const status = decoder.run();
      // an end marker after all
      if (status === 'end-marker') return decoder.code === 0 ? { end: input.pos, size: decoder.total } : decoder.lastFinished;
      signal?.throwIfAborted();
      await input.fill();
    }
  } catch (error) {
    if (!(error instanceof Broken)) throw error;
  }
  return decoder.lastFinished;
}

// The thread that decodes LZMA and xz streams for lzma-stream-decode.ts. A stream's input arrives in pieces; each
// call decodes what the stream holds, in bounded steps, until its output reaches the call's limit or the input runs
// out, keeping the rest of the input for the next call. Decoding here, synchronously, needs no turn of the engine's
// event loop between two steps and no place in libuv's thread pool behind the SquashFS block decodes.
import { answerTasks } from '../../task-thread-port.js';
import { openLzma, STEP, type LzmaCoder, type NativeStream } from '../codecs/lzma.js';

/** `coder` opens the stream (on its first call); `final`: no input follows this call's. */
export type LzmaStreamMessage =
  | { type: 'decode'; id: number; coder?: LzmaCoder; input?: Uint8Array; final: boolean; maxOutput: number }
  | { type: 'close'; id: number };

export interface LzmaStreamReply {
  /** What came out of this call (empty when nothing did). */
  output: Uint8Array;
  /** Input bytes the decoder has consumed since the stream began. */
  consumed: number;
  ended: boolean;
  /** The decoder's error message; the stream is over. */
  error?: string;
  /** Input is left over (the output limit stopped the call): call again, with or without more input. */
  pending: boolean;
}

class SteppedStream {
  private readonly native: NativeStream;
  private input: Buffer[] = [];
  private parts: Buffer[] = [];
  private produced = 0;
  private consumed = 0;
  private final = false;
  private finished = false;
  private ended = false;
  private error: string | undefined;

  constructor(coder: LzmaCoder) {
    this.native = openLzma(coder);
    this.native.bufferHandler = (buf, _processed, error, totalIn) => {
      if (typeof totalIn === 'number') this.consumed = totalIn;
      if (buf) {
        this.parts.push(buf);
        this.produced += buf.length;
      } else if (error) this.error ??= error.message;
      else if (buf === null) this.ended = true;
    };
  }

  decode(input: Uint8Array | undefined, final: boolean, maxOutput: number): LzmaStreamReply {
    if (input && input.length > 0) this.input.push(Buffer.from(input.buffer, input.byteOffset, input.length));
    this.final ||= final;
    while (!this.over && this.produced < maxOutput && this.input.length > 0) {
      const head = this.input[0]!;
      const step = head.subarray(0, STEP);
      this.input[0] = head.subarray(step.length);
      if (this.input[0].length === 0) this.input.shift();
      this.native.code(step, false);
    }
    // the input's end, once all of it is in: liblzma finishes the stream or says it is truncated
    if (!this.over && this.final && this.input.length === 0 && !this.finished) {
      this.finished = true;
      this.native.code(null, false);
    }
    // one buffer of its own: a view into a larger one would be copied whole to the engine's thread
    const only = this.parts.length === 1 ? this.parts[0]! : undefined;
    const output = only && only.byteLength === only.buffer.byteLength ? only : Buffer.concat(this.parts, this.produced);
    this.parts = [];
    this.produced = 0;
    return { output, consumed: this.consumed, ended: this.ended, error: this.error, pending: !this.over && this.input.length > 0 };
  }

  get over(): boolean {
    return this.ended || this.error !== undefined;
  }

  close(): void {
    this.native.resetUnderlying();
  }
}

const streams = new Map<number, SteppedStream>();

answerTasks<LzmaStreamMessage>((message): LzmaStreamReply | undefined => {
  if (message.type === 'close') {
    streams.get(message.id)?.close();
    streams.delete(message.id);
    return undefined;
  }
  let stream = streams.get(message.id);
  if (!stream && message.coder) streams.set(message.id, (stream = new SteppedStream(message.coder)));
  if (!stream) throw new Error(`lzma stream ${message.id} is not open`);
  return stream.decode(message.input, message.final, message.maxOutput);
});

// The thread that decodes LZMA and xz streams for lzma-stream-decode.ts. A stream's input arrives in pieces; each
// call decodes what the stream holds, in bounded steps, until its output reaches the call's limit or the input runs
// out, keeping the rest of the input for the next call (LzmaSteps, codecs/lzma.ts). Decoding here, synchronously,
// needs no turn of the engine's event loop between two steps and no place in libuv's thread pool behind the
// SquashFS block decodes.
import { answerTasks } from '../../task-thread-port.js';
import { LzmaSteps, type LzmaCoder, type LzmaStepsOutput } from '../codecs/lzma.js';

/** `coder` opens the stream (on its first call); `final`: no input follows this call's. */
export type LzmaStreamMessage =
  | { type: 'decode'; id: number; coder?: LzmaCoder; input?: Uint8Array; final: boolean; maxOutput: number }
  | { type: 'close'; id: number };

/** A call's answer (its output arrives on the engine's thread as a Uint8Array). */
export type LzmaStreamReply = Omit<LzmaStepsOutput, 'output'> & { output: Uint8Array };

const streams = new Map<number, LzmaSteps>();

answerTasks<LzmaStreamMessage>((message): LzmaStreamReply | undefined => {
  if (message.type === 'close') {
    streams.get(message.id)?.close();
    streams.delete(message.id);
    return undefined;
  }
  let stream = streams.get(message.id);
  if (!stream && message.coder) streams.set(message.id, (stream = new LzmaSteps(message.coder.kind === 'xz' ? 'xz' : 'lzma', message.coder)));
  if (!stream) throw new Error(`lzma stream ${message.id} is not open`);
  return stream.decode(message.input, message.final, message.maxOutput);
});

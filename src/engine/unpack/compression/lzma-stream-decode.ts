// LZMA and xz streams decoded on a thread of their own (lzma-stream-thread.ts), for the stream handlers' probes and
// extractions: the same blocks, end and errors as decodeRange (decode-stream.ts) with lzma-native's stream, without
// what that stream costs beside a SquashFS. It decodes 16 KiB of input per round trip through libuv's thread pool,
// where each step queued behind the SquashFS block decodes, and the engine's thread had to take a turn to start
// the next: an OpenWrt kernel (2.4 MB of LZMA, 0.15 s of CPU) took 0.5 s beside its root filesystem.
// Here the input goes out in pieces of up to 1 MiB, two at a time, and each call comes back with at most
// MAX_CALL_OUTPUT bytes (and one step's more), the thread keeping the input it has not decoded yet: what waits in
// memory stays bounded whatever the stream expands to. A short stream (an .xz file in a root filesystem) keeps the
// old way: its few steps cost less than the thread, whose start costs ~20 MB and tens of milliseconds; so does a
// stream that breaks within its first piece (LZMA's weak signature matches inside large binaries, and some pass the
// handler's first check), decoded here once to see that.
import { TaskThread } from '../../task-thread.js';
import { FormatError } from '../../format-error.js';
import { LimitError, type Reader } from '../handler.js';
import { lzma, probeLzma, type LzmaCoder } from '../codecs/lzma.js';
import { decodeRange, decoderError } from './decode-stream.js';
import { lzmaDecoder } from './lzma-stream.js';
import type { LzmaStreamMessage, LzmaStreamReply } from './lzma-stream-thread.js';

const thread = new TaskThread<LzmaStreamMessage>(import.meta.url, 'lzma-stream-thread');
let nextId = 0;

/** The first piece is small: most candidates of LZMA's weak signature break within it. */
const FIRST_PIECE = 64 * 1024;
const PIECE = 1024 * 1024;
const PIECES_IN_FLIGHT = 2;
const MAX_CALL_OUTPUT = 4 * 1024 * 1024;
/** Streams with less input than this (from their start to the reader's end) are decoded on the engine's thread. */
const ON_THREAD_MIN = 1024 * 1024;

/**
 * Decodes `reader` from `start` to its end or the stream's: yields the decoded blocks and returns the input bytes the
 * decoder consumed. FormatError for a corrupt or truncated stream, or one whose input ends without its end.
 */
export async function* decodeLzmaStream(codec: string, coder: LzmaCoder, reader: Reader, start: number, signal?: AbortSignal): AsyncGenerator<Buffer, number> {
  if (await worthTheThread(coder, reader, start)) return yield* decodeOnThread(codec, coder, reader, start, signal);
  return yield* decodeRange(codec, reader, start, lzmaDecoder(nodeStream(coder)), signal);
}

/**
 * A long input whose first piece (up to 64 KiB out of it) decodes to something, without an error and without the
 * stream's end (the decode itself reports errors, either way). Some candidates in large binaries decode 64 KiB to
 * nothing at all.
 */
async function worthTheThread(coder: LzmaCoder, reader: Reader, start: number): Promise<boolean> {
  if (reader.size - start < ON_THREAD_MIN) return false;
  const first = probeLzma(coder, await reader.read(start, FIRST_PIECE), FIRST_PIECE);
  return first.produced > 0 && !first.broke && !first.ended;
}

/** lzma-native's Node stream for the coder (raw LZMA1 is not decoded this way). */
function nodeStream(coder: LzmaCoder) {
  if (coder.kind === 'alone') return lzma().createStream('aloneDecoder', coder.memlimit ? { memlimit: coder.memlimit } : {});
  if (coder.kind === 'xz') return lzma().createStream('streamDecoder', coder.single ? {} : { flags: lzma().CONCATENATED });
  throw new Error('raw LZMA1 streams are decoded through decodeRange');
}

async function* decodeOnThread(codec: string, coder: LzmaCoder, reader: Reader, start: number, signal?: AbortSignal): AsyncGenerator<Buffer, number> {
  const id = nextId++;
  let opened = false;
  const inFlight: Array<Promise<LzmaStreamReply>> = [];
  const decode = (input: Buffer | undefined, final: boolean) => {
    const reply = thread.call<LzmaStreamReply>({ type: 'decode', id, input, final, maxOutput: MAX_CALL_OUTPUT, ...(opened ? {} : { coder }) });
    opened = true;
    reply.catch(() => undefined); // awaited in order below, where a failure is seen
    inFlight.push(reply);
  };
  let at = start;
  let sentFinal = false;
  /** The thread holds input it has not decoded (the last call's output limit): no more is sent until it has. */
  let leftover = false;
  try {
    for (;;) {
      signal?.throwIfAborted();
      while (!sentFinal && !leftover && inFlight.length < PIECES_IN_FLIGHT) {
        const piece = await reader.read(at, at === start ? FIRST_PIECE : PIECE);
        at += piece.length;
        sentFinal = piece.length === 0 || at >= reader.size;
        decode(piece, sentFinal);
      }
      if (inFlight.length === 0) decode(undefined, sentFinal);
      const reply = await inFlight.shift()!;
      if (reply.output.length > 0) yield Buffer.from(reply.output.buffer, reply.output.byteOffset, reply.output.length);
      if (reply.error !== undefined) throw decoderError(codec, new Error(reply.error));
      if (reply.ended) return reply.consumed;
      leftover = reply.pending;
      if (sentFinal && !leftover && inFlight.length === 0) throw new FormatError(`${codec}: stream did not end`);
    }
  } catch (error) {
    if (error instanceof FormatError || error instanceof LimitError || signal?.aborted) throw error;
    throw new Error(`${codec}: the stream decoding thread failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    if (opened) thread.send({ type: 'close', id });
  }
}

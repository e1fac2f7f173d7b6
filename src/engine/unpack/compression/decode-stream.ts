// One decode path for the stream codecs (deflate, xz, lzma): pipes a byte range of a Reader through a decoding
// Transform in bounded steps, yields the decoded blocks, and returns how many input bytes the codec consumed, so
// the caller knows where the compressed stream ends. Count-only validation (chunk) and extraction (extract) run
// the same generator; one discards the blocks, the other streams them to the sink.
import type { Transform } from 'node:stream';
import { FormatError } from '../../format-error.js';
import { LimitError, type ChunkContext, type Reader } from '../handler.js';

export interface Decoder {
  stream: Transform;
  /** Input bytes the codec has consumed so far (exact once it reports its end). */
  consumed(): number;
}

/** Input is fed in small steps so that one step can never expand into an unbounded burst of output. */
const STEP = 16 * 1024;

export async function* decodeRange(
  codec: string,
  reader: Reader,
  start: number,
  decoder: Decoder,
  signal?: AbortSignal,
): AsyncGenerator<Buffer, number> {
  const { stream } = decoder;
  const queue: Buffer[] = [];
  let ended = false;
  let failure: Error | undefined;
  stream.on('data', (chunk: Buffer) => queue.push(chunk));
  stream.on('end', () => (ended = true));
  stream.on('error', (error: Error) => (failure ??= error));
  // Some codecs never call back a write that arrived after their stream ended: waiting also ends on 'end'.
  const done = new Promise<void>((resolve) => {
    stream.once('end', () => resolve());
    stream.once('error', () => resolve());
    stream.once('close', () => resolve());
  });
  const settle = () => done;
  const write = (data: Buffer) => Promise.race([new Promise<void>((resolve) => stream.write(data, () => resolve())), done]);
  try {
    let at = start;
    while (at < reader.size && !ended && !failure) {
      signal?.throwIfAborted();
      const block = await reader.read(at, STEP);
      at += block.length;
      await write(block);
      while (queue.length > 0) yield queue.shift()!;
    }
    if (!ended && !failure) {
      stream.end();
      await settle();
    }
    while (queue.length > 0) yield queue.shift()!;
    if (failure) throw failure;
    if (!ended) throw new FormatError(`${codec}: stream did not end`);
    return decoder.consumed();
  } catch (error) {
    if (error instanceof FormatError || error instanceof LimitError || signal?.aborted) throw error;
    throw decoderError(codec, error);
  } finally {
    stream.destroy();
  }
}

/** What a codec's own error says, as a FormatError: input that ends inside the stream is a 'truncated stream'. */
export function decoderError(codec: string, error: unknown): FormatError {
  const message = error instanceof Error ? error.message : String(error);
  // liblzma says "No progress is possible" (LZMA_BUF_ERROR) when its input ends inside the stream.
  return new FormatError(`${codec}: ${/end of (file|input)|truncated|no progress is possible/i.test(message) ? 'truncated stream' : message} (${message})`);
}

/** A candidate whose decode fails before this much output is a false positive: rejected quietly. */
export const QUIET_BELOW = 64;

/**
 * Count-only run of a decode generator: discards the output, enforces the byte budget and returns the
 * generator's result (the stream's end) and the decoded size. Returns null (a quiet false positive) when the
 * stream breaks before QUIET_BELOW bytes came out; a later break, or input that ends too early, is a corrupt
 * chunk (FormatError).
 */
export async function countOnly<R>(
  codec: string,
  blocks: AsyncGenerator<Buffer, R>,
  ctx?: ChunkContext,
): Promise<{ result: R; size: number } | null> {
  let size = 0;
  for (;;) {
    let next: IteratorResult<Buffer, R>;
    try {
      next = await blocks.next();
    } catch (error) {
      // Input that runs out is a real but truncated stream, never a false positive.
      if (error instanceof FormatError && size < QUIET_BELOW && !/truncated/.test(error.message)) return null;
      throw error;
    }
    if (next.done) return { result: next.value, size };
    size += next.value.length;
    if (ctx && size > ctx.maxOutput) {
      await blocks.return(undefined as R);
      throw new LimitError('bytes', `${codec}: decoded size exceeds the remaining budget of ${ctx.maxOutput} bytes`);
    }
  }
}

/** Wraps a generator so its blocks can be written to a sink (which needs a plain AsyncIterable). */
export async function* payload<R>(blocks: AsyncGenerator<Buffer, R>): AsyncGenerator<Buffer> {
  for (;;) {
    const next = await blocks.next();
    if (next.done) return;
    yield next.value;
  }
}

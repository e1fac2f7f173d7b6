// Synchronous liblzma decoding of in-memory blocks (SquashFS and CramFS blocks, UEFI sections, CBFS stages)
// through lzma-native's native Stream class, without its Node stream wrapper. The wrapper costs more than the
// decoding for small blocks: it scans every input byte in JavaScript for xz stream boundaries and hands every
// output piece over through setImmediate. Input is fed in steps so that one call can never expand into an
// unbounded burst of output; the decoder state is always released before returning.
import { createRequire } from 'node:module';
import { FormatError } from './handler.js';

const require = createRequire(import.meta.url);
// lzma-native is CommonJS with a native binding; loaded lazily so tools that never decode LZMA skip it.
let lzmaModule: typeof import('lzma-native') | undefined;
export function lzma(): typeof import('lzma-native') {
  lzmaModule ??= require('lzma-native') as typeof import('lzma-native');
  return lzmaModule;
}

export interface LzmaProps {
  lc: number;
  lp: number;
  pb: number;
  dictSize: number;
}

export type LzmaCoder = { kind: 'xz' } | { kind: 'alone' } | { kind: 'raw'; props: LzmaProps };

export interface DecodeOptions {
  /** Accept a decoder error once some output came out (raw streams without an end marker). */
  allowTruncated?: boolean;
  /** Stop successfully once this many bytes came out (a declared size), ignoring what follows. */
  stopAt?: number;
}

/** Input bytes per native call: LZMA expands at most a few thousand times, so one step stays bounded. */
const STEP = 16 * 1024;

/** The part of lzma-native's native Stream used here (exported by the package, not in its typings). */
interface NativeStream {
  bufferHandler: (buf: Buffer | null | undefined, processedChunks: number | undefined, error: Error | null | undefined) => void;
  streamDecoder(options: { flags?: number }): void;
  aloneDecoder(options: object): void;
  rawDecoder(options: { filters: unknown[] }): void;
  code(input: Buffer | null, async: boolean): void;
  resetUnderlying(): void;
}

function open(coder: LzmaCoder): NativeStream {
  const lib = lzma() as unknown as { Stream: new () => NativeStream; CONCATENATED: number; FILTER_LZMA1: number };
  const stream = new lib.Stream();
  if (coder.kind === 'xz') stream.streamDecoder({ flags: lib.CONCATENATED });
  else if (coder.kind === 'alone') stream.aloneDecoder({});
  else {
    const { dictSize, lc, lp, pb } = coder.props;
    stream.rawDecoder({ filters: [{ id: lib.FILTER_LZMA1, options: { dictSize, lc, lp, pb } }] });
  }
  return stream;
}

/** Decodes `input` completely (or to `stopAt`) and returns at most `maxOutput` bytes; FormatError otherwise. */
export function decodeLzmaSync(codec: string, coder: LzmaCoder, input: Buffer, maxOutput: number, options: DecodeOptions = {}): Buffer {
  const { allowTruncated = false, stopAt } = options;
  const parts: Buffer[] = [];
  let total = 0;
  let ended = false;
  let capped = false;
  let failure: Error | undefined;
  let stream: NativeStream;
  try {
    stream = open(coder);
  } catch (error) {
    throw new FormatError(`${codec}: ${error instanceof Error ? error.message : String(error)}`);
  }
  stream.bufferHandler = (buf, _processed, error) => {
    if (buf) {
      if (capped || (stopAt !== undefined && total >= stopAt)) return;
      // The piece that reaches a declared size within the cap is kept even if it runs past the cap.
      const reachesStop = stopAt !== undefined && stopAt <= maxOutput && total + buf.length >= stopAt;
      if (total + buf.length > maxOutput && !reachesStop) {
        capped = true;
        return;
      }
      parts.push(buf);
      total += buf.length;
    } else if (error) failure ??= error;
    else if (buf === null) ended = true;
  };
  const done = () => ended || capped || failure !== undefined || (stopAt !== undefined && total >= stopAt);
  try {
    for (let at = 0; at < input.length && !done(); at += STEP) stream.code(input.subarray(at, at + STEP), false);
    if (!done()) stream.code(null, false);
  } finally {
    stream.resetUnderlying();
  }
  const output = parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
  if (stopAt !== undefined && total >= stopAt) return output.subarray(0, stopAt);
  if (capped) throw new FormatError(`${codec}: output exceeds ${maxOutput} bytes`);
  if (failure && !(allowTruncated && total > 0)) throw new FormatError(`${codec}: ${failure.message}`);
  if (stopAt !== undefined && !allowTruncated) throw new FormatError(`${codec}: stream ended after ${total} of ${stopAt} bytes`);
  return output;
}

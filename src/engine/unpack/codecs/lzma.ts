// Synchronous liblzma decoding of in-memory blocks (SquashFS and CramFS blocks, UEFI sections, CBFS stages)
// through lzma-native's native Stream class, without its Node stream wrapper. The wrapper costs more than the
// decoding for small blocks: it scans every input byte in JavaScript for xz stream boundaries and hands every
// output piece over through setImmediate. Input is fed in steps so that one call can never expand into an
// unbounded burst of output; the decoder state is always released before returning.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { FormatError } from '../../format-error.js';

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

/** `xz` decodes concatenated streams as one unless `single` (then it ends with its first stream). */
export type LzmaCoder = { kind: 'xz'; single?: boolean } | { kind: 'alone'; memlimit?: number } | { kind: 'raw'; props: LzmaProps };

export interface DecodeOptions {
  /** Accept a decoder error once some output came out (raw streams without an end marker). */
  allowTruncated?: boolean;
  /** Stop successfully once this many bytes came out (a declared size), ignoring what follows. */
  stopAt?: number;
  /**
   * The output size the stream itself enforces (an xz Block that declares it: xz-declared.ts). Then the whole input
   * goes to liblzma in one native call instead of STEP bytes a call (liblzma decodes all of a call's input at once,
   * and here stops at that size by itself), and lzma-native's output buffer (64 KiB unless set) is made that size,
   * so the output comes in one piece, returned as it is instead of joined into a new buffer.
   */
  enforcedOutput?: number;
}

/** Input bytes per native call: LZMA expands at most a few thousand times, so one step stays bounded. */
const STEP = 16 * 1024;

/** lzma-native's native binding: its Stream class and constants, without the package's JavaScript. */
interface NativeBinding {
  Stream: new () => NativeStream;
  CONCATENATED: number;
  FILTER_LZMA1: string;
}

let nativeBinding: NativeBinding | undefined;
/**
 * The binding alone, loaded as the package loads it (node-gyp-build, from the package's folder: the same addon,
 * so the package loaded later shares it). The package's index also loads readable-stream and builds its stream
 * wrapper, which the block decoders here never use: 14 ms in a CPU profile of coreboot.rom's scan, which shows
 * as 2-4 ms of its wall time (medians of ten alternating scans, 2026-12-02).
 */
function lzmaBinding(): NativeBinding {
  if (!nativeBinding) {
    const packageJson = require.resolve('lzma-native/package.json');
    nativeBinding = (createRequire(packageJson)('node-gyp-build') as (dir: string) => NativeBinding)(dirname(packageJson));
  }
  return nativeBinding;
}

/**
 * The part of the native Stream used here. The binding's own decoder set-ups (the package's index wraps them as
 * streamDecoder, aloneDecoder and rawDecoder): a memory limit or null, and the stream flags.
 */
interface NativeStream {
  /** `totalIn`: input bytes the decoder has consumed so far (null in some reports). */
  bufferHandler: (
    buf: Buffer | null | undefined,
    processedChunks: number | undefined,
    error: Error | null | undefined,
    totalIn?: number | null,
  ) => void;
  streamDecoder_(memlimit: number | null, flags: number): void;
  aloneDecoder_(memlimit: number | null): void;
  rawDecoder_(filters: unknown[]): void;
  code(input: Buffer | null, async: boolean): void;
  resetUnderlying(): void;
  /** Sets the size of the buffers output comes in (a positive size; the old one is returned). */
  setBufsize(size: number): number;
}

/** A native decoder for `coder`; the caller sets its bufferHandler and releases it (resetUnderlying). */
function openLzma(coder: LzmaCoder): NativeStream {
  const lib = lzmaBinding();
  const stream = new lib.Stream();
  if (coder.kind === 'xz') stream.streamDecoder_(null, coder.single ? 0 : lib.CONCATENATED);
  else if (coder.kind === 'alone') stream.aloneDecoder_(coder.memlimit || null);
  else {
    const { dictSize, lc, lp, pb } = coder.props;
    stream.rawDecoder_([{ id: lib.FILTER_LZMA1, options: { dictSize, lc, lp, pb } }]);
  }
  return stream;
}

/** One decode: the native stream and what it has produced so far, checked against the cap and declared size. */
class Decoding {
  readonly stream: NativeStream;
  private parts: Buffer[] = [];
  private total = 0;
  private totalIn = 0;
  /** Bytes in `parts`: what came out since the last drain. */
  private heldBytes = 0;
  private ended = false;
  private capped = false;
  private failure: Error | undefined;
  /** Called after each batch of output the native side hands over (async mode waits on it). */
  onReport: () => void = () => undefined;

  constructor(
    private readonly codec: string,
    coder: LzmaCoder,
    private readonly maxOutput: number,
    private readonly options: DecodeOptions,
  ) {
    try {
      this.stream = openLzma(coder);
    } catch (error) {
      throw new FormatError(`${codec}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (options.enforcedOutput) this.stream.setBufsize(options.enforcedOutput);
    this.stream.bufferHandler = (buf, processed, error, totalIn) => {
      if (typeof totalIn === 'number') this.totalIn = totalIn;
      if (buf) this.take(buf);
      else if (error) this.failure ??= error;
      else if (buf === null) this.ended = true;
      if (buf === null || processed !== undefined) this.onReport();
    };
  }

  private take(buf: Buffer): void {
    const { stopAt } = this.options;
    if (this.capped || (stopAt !== undefined && this.total >= stopAt)) return;
    // The piece that reaches a declared size within the cap is kept even if it runs past the cap.
    const reachesStop = stopAt !== undefined && stopAt <= this.maxOutput && this.total + buf.length >= stopAt;
    if (this.total + buf.length > this.maxOutput && !reachesStop) {
      this.capped = true;
      return;
    }
    this.parts.push(buf);
    this.total += buf.length;
    this.heldBytes += buf.length;
  }

  get broke(): boolean {
    return this.failure !== undefined;
  }

  /** The decoder's error, once it broke. */
  get error(): Error | undefined {
    return this.failure;
  }

  /** Input bytes the decoder has consumed so far. */
  get consumed(): number {
    return this.totalIn;
  }

  /** Output bytes not yet drained. */
  get held(): number {
    return this.heldBytes;
  }

  /**
   * What came out since the last drain, as one buffer of its own (a view into a larger one would be copied whole to
   * another thread), for a decode that hands its output over as it goes; result() covers only what follows.
   */
  drain(): Buffer {
    const only = this.parts.length === 1 ? this.parts[0]! : undefined;
    const output = only && only.byteLength === only.buffer.byteLength ? only : Buffer.concat(this.parts, this.heldBytes);
    this.parts = [];
    this.heldBytes = 0;
    return output;
  }

  /** The stream's end came out (not a cap, a declared size or an error). */
  get finished(): boolean {
    return this.ended;
  }

  get produced(): number {
    return this.total;
  }

  /** Input bytes per native call (DecodeOptions.enforcedOutput: all of it at once). */
  get inputStep(): number {
    return this.options.enforcedOutput ? Infinity : STEP;
  }

  get done(): boolean {
    const { stopAt } = this.options;
    return this.ended || this.capped || this.failure !== undefined || (stopAt !== undefined && this.total >= stopAt);
  }

  result(): Buffer {
    const { codec, total, maxOutput } = this;
    const { allowTruncated = false, stopAt } = this.options;
    const output = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, total);
    if (stopAt !== undefined && total >= stopAt) return output.subarray(0, stopAt);
    if (this.capped) throw new FormatError(`${codec}: output exceeds ${maxOutput} bytes`);
    if (this.failure && !(allowTruncated && total > 0)) throw new FormatError(`${codec}: ${this.failure.message}`);
    if (stopAt !== undefined && !allowTruncated) throw new FormatError(`${codec}: stream ended after ${total} of ${stopAt} bytes`);
    return output;
  }
}

/** What one LzmaSteps.decode call gives. */
export interface LzmaStepsOutput {
  /** What came out of this call (empty when nothing did). */
  output: Buffer;
  /** Input bytes the decoder has consumed since the stream began. */
  consumed: number;
  ended: boolean;
  /** The decoder's error message; the stream is over. */
  error?: string;
  /** Input is left over (the output limit stopped the call): call again, with or without more input. */
  pending: boolean;
}

/**
 * A stream decoded as its input arrives, synchronously, in STEP-sized native calls: each decode() goes on until its
 * output reaches `maxOutput` (one step's output more at most) or the input runs out, and keeps the rest of the input
 * for the next call (compression/lzma-stream-thread.ts). Release it with close().
 */
export class LzmaSteps {
  private readonly decoding: Decoding;
  private input: Buffer[] = [];
  private final = false;
  /** The input's end was passed to liblzma (once). */
  private endSent = false;

  constructor(codec: string, coder: LzmaCoder) {
    this.decoding = new Decoding(codec, coder, Infinity, {});
  }

  /** `final`: no input follows this call's. */
  decode(input: Uint8Array | undefined, final: boolean, maxOutput: number): LzmaStepsOutput {
    const decoding = this.decoding;
    if (input && input.length > 0) this.input.push(Buffer.from(input.buffer, input.byteOffset, input.length));
    this.final ||= final;
    while (!decoding.done && decoding.held < maxOutput && this.input.length > 0) {
      const head = this.input[0]!;
      const step = head.subarray(0, STEP);
      if (step.length === head.length) this.input.shift();
      else this.input[0] = head.subarray(step.length);
      decoding.stream.code(step, false);
    }
    // the input's end, once all of it is in: liblzma finishes the stream or says it is truncated
    if (!decoding.done && this.final && this.input.length === 0 && !this.endSent) {
      this.endSent = true;
      decoding.stream.code(null, false);
    }
    const pending = !decoding.done && this.input.length > 0;
    return { output: decoding.drain(), consumed: decoding.consumed, ended: decoding.finished, error: decoding.error?.message, pending };
  }

  close(): void {
    this.decoding.stream.resetUnderlying();
  }
}

/**
 * Decodes `input` completely (or to `stopAt`) on the calling thread and returns at most `maxOutput` bytes;
 * FormatError otherwise. For small inputs (candidate probes) where a thread-pool round trip costs more.
 */
export function decodeLzmaSync(codec: string, coder: LzmaCoder, input: Buffer, maxOutput: number, options: DecodeOptions = {}): Buffer {
  const decoding = new Decoding(codec, coder, maxOutput, options);
  try {
    const step = decoding.inputStep;
    for (let at = 0; at < input.length && !decoding.done; at += step) decoding.stream.code(input.subarray(at, at + step), false);
    if (!decoding.done) decoding.stream.code(null, false);
  } finally {
    decoding.stream.resetUnderlying();
  }
  return decoding.result();
}

/** As decodeLzmaSync, but each step runs on the libuv thread pool, so blocks decode in parallel. */
export async function decodeLzma(codec: string, coder: LzmaCoder, input: Buffer, maxOutput: number, options: DecodeOptions = {}): Promise<Buffer> {
  const decoding = new Decoding(codec, coder, maxOutput, options);
  const step = (chunk: Buffer | null) =>
    new Promise<void>((resolve) => {
      decoding.onReport = resolve;
      decoding.stream.code(chunk, true);
    });
  const inputStep = decoding.inputStep;
  try {
    for (let at = 0; at < input.length && !decoding.done; at += inputStep) await step(input.subarray(at, at + inputStep));
    if (!decoding.done) await step(null);
  } finally {
    decoding.stream.resetUnderlying();
  }
  return decoding.result();
}

/** Input bytes per call of a probe: the output of the call that breaks is lost, so calls are kept small. */
const PROBE_STEP = 128;

/**
 * Whether an LZMA stream yields `enough` bytes from `input` before breaking on a data error; running out of input
 * is no error here, so a real stream's prefix never breaks. A cheap first test for candidates of LZMA's weak
 * signature: random bytes break within a few dozen bytes. (liblzma's output from the call that hits the error is
 * dropped by lzma-native, hence the small steps.) `ended`: the stream's end came out of `input`.
 */
export function probeLzma(coder: LzmaCoder, input: Buffer, enough: number): { produced: number; broke: boolean; ended: boolean } {
  let decoding: Decoding;
  try {
    decoding = new Decoding('lzma', coder, Math.max(enough, 1 << 16), {});
  } catch {
    return { produced: 0, broke: true, ended: false };
  }
  // Stack traces of the expected decoder errors are never read.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    for (let at = 0; at < input.length && !decoding.done && decoding.produced < enough; at += PROBE_STEP) {
      decoding.stream.code(input.subarray(at, at + PROBE_STEP), false);
    }
  } finally {
    Error.stackTraceLimit = limit;
    decoding.stream.resetUnderlying();
  }
  return { produced: decoding.produced, broke: decoding.broke, ended: decoding.finished };
}

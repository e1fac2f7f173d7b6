// The extraction limits are one value; a Budget charges every extracted file and byte against it and fails
// with a LimitError (recorded, visible in the result) when one is reached. What is not kept (a file the sink
// dropped or deleted) is released again, so the budget counts only what is on disk.
import { LimitError } from './handler.js';

export interface Limits {
  /** Maximum nesting depth of extraction (the image is depth 0). */
  maxDepth: number;
  /** Maximum total bytes kept on disk for one image. */
  maxTotalBytes: number;
  /** Maximum number of extracted entries (files, directories, links) for one image. */
  maxFiles: number;
  /** Wall-clock budget for unpacking one image, in milliseconds. */
  timeoutMs: number;
}

export const DEFAULT_LIMITS = {
  maxDepth: 16,
  /** Total bytes default to this multiple of the input size... */
  expansionRatio: 20,
  /**
   * ...but never more than this ceiling. There is no floor: a floor would let a small bomb expand far past the
   * ratio, and no corpus image needs one (the most is OVMF_CODE.secboot.fd, 1.97 MB to 21.1 MB: 10.7x).
   */
  maxTotalBytesCeiling: 16 * 1024 ** 3,
  maxFiles: 200_000,
  timeoutMs: 10 * 60 * 1000,
} as const;

export function resolveLimits(inputSize: number, overrides: Partial<Limits> = {}): Limits {
  const byRatio = inputSize * DEFAULT_LIMITS.expansionRatio;
  return {
    maxDepth: overrides.maxDepth ?? DEFAULT_LIMITS.maxDepth,
    maxTotalBytes: overrides.maxTotalBytes ?? Math.min(byRatio, DEFAULT_LIMITS.maxTotalBytesCeiling),
    maxFiles: overrides.maxFiles ?? DEFAULT_LIMITS.maxFiles,
    timeoutMs: overrides.timeoutMs ?? DEFAULT_LIMITS.timeoutMs,
  };
}

/** Shared by every sink of one image's extraction. */
export class Budget {
  files = 0;
  bytes = 0;
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly limits: Limits,
    parentSignal?: AbortSignal,
  ) {
    this.timer = setTimeout(
      () => this.controller.abort(new LimitError('time', `time limit of ${limits.timeoutMs} ms reached`)),
      limits.timeoutMs,
    );
    this.timer.unref();
    if (parentSignal) {
      if (parentSignal.aborted) this.controller.abort(parentSignal.reason);
      else parentSignal.addEventListener('abort', () => this.controller.abort(parentSignal.reason), { once: true });
    }
    this.signal = this.controller.signal;
  }

  /** Throws the abort reason when the deadline passed or the scan was cancelled. */
  checkTime(): void {
    if (this.signal.aborted) throw this.signal.reason instanceof Error ? this.signal.reason : new LimitError('time', 'aborted');
  }

  chargeFile(): void {
    this.checkTime();
    if (this.files >= this.limits.maxFiles) {
      throw new LimitError('files', `file count limit of ${this.limits.maxFiles} reached`);
    }
    this.files++;
  }

  /** Gives back a file that was charged but is not kept. */
  releaseFile(): void {
    this.files--;
  }

  get remainingBytes(): number {
    return Math.max(0, this.limits.maxTotalBytes - this.bytes);
  }

  chargeBytes(n: number): void {
    if (this.bytes + n > this.limits.maxTotalBytes) {
      throw new LimitError('bytes', `extracted size limit of ${this.limits.maxTotalBytes} bytes reached`);
    }
    this.bytes += n;
  }

  /** Gives back bytes that were charged but are not kept (a file deleted or dropped half-written). */
  releaseBytes(n: number): void {
    this.bytes -= n;
  }

  /** Stops the whole extraction for a reason that is not a limit (the disk is full): every sink and search sees it. */
  fail(reason: Error): void {
    this.controller.abort(reason);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}

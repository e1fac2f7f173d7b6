// Trusted engine errors: an image the engine cannot analyse, for a reason a person can read and act on. The
// service ends the scan `failed` with the message as it is, and `firmscope scan` prints it and exits 1. Any
// other exception from the engine is a bug and is reported as "analysis failed: ...". The worker thread passes
// errors on by message and name, so callers test the name (isEngineError), not the class.

export class EngineError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Nothing in the image was recognised and nothing in it can be analysed (see problems.ts, unrecognisedReason). */
export class UnrecognisedImageError extends EngineError {}

/** The disk filled up (ENOSPC, EDQUOT) while extracting: what is on disk is not the image's content. */
export class DiskFullError extends EngineError {}

const NAMES = new Set(['EngineError', 'UnrecognisedImageError', 'DiskFullError']);

/** True for an EngineError, also one that crossed a thread boundary as { name, message }. */
export function isEngineError(error: unknown): error is Error {
  return error instanceof EngineError || (error instanceof Error && NAMES.has(error.name));
}

const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);

/** A DiskFullError for a filesystem error that says the disk or quota is full; undefined for any other error. */
export function diskFullError(error: unknown): DiskFullError | undefined {
  if (error instanceof DiskFullError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string' || !DISK_FULL_CODES.has(code)) return undefined;
  return new DiskFullError(`out of disk space while extracting (${code})`, { cause: error });
}

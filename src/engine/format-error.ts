// The engine's parse error: a malformed or truncated input found by any reader of bytes (format handlers, binary,
// package-database and vulnerability-feed parsers). Expected and trusted: the caller records its message as the
// reason (a corrupt chunk, a skipped file, a rejected feed record) and goes on.

/** A malformed or truncated input: an expected, trusted failure with a reason a person can read. */
export class FormatError extends Error {
  override name = 'FormatError';

  constructor(message: string, options?: ErrorOptions) {
    // Thrown for every rejected candidate (thousands in a large image) and only ever reported by its message:
    // capturing a stack trace would cost more than the check that failed.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message, options);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

// Domain errors, below every layer that raises them: the store, auth and services throw these; the API's one
// error handler maps them to HTTP. Domain code never throws HTTP errors.

export interface ErrorDetail {
  reason: string;
  field?: string;
}

export class DomainError extends Error {
  constructor(
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad input: names what to fix (→ 400). */
export class InvalidInputError extends DomainError {}

/** Missing, or not visible to the caller (→ 404, never leaking existence across organisations). */
export class NotFoundError extends DomainError {}

/** A state that forbids the move: disallowed transition, temp file not uploaded or already used (→ 409). */
export class ConflictError extends DomainError {}

/** Input larger than allowed (→ 413). */
export class TooLargeError extends DomainError {}

/** The server's storage is full (ENOSPC, a quota): the request may succeed once space is freed (→ 507). */
export class InsufficientStorageError extends DomainError {
  constructor(message = 'the server is out of disk space; free space or contact the operator and retry') {
    super(message, [{ reason: 'insufficientStorage' }]);
  }
}

/** Results not ready yet, or a report that this version cannot produce (→ 422). */
export class NotReadyError extends DomainError {}

/** Well-formed input the service cannot use, e.g. a rule source that does not compile (→ 422, details say why). */
export class UnprocessableError extends DomainError {}

/** No, invalid or expired credentials (→ 401). */
export class UnauthenticatedError extends DomainError {}

/** The caller's role lacks a permission (→ 403). */
export class ForbiddenError extends DomainError {
  constructor(
    message: string,
    readonly permission?: string,
    readonly resourceName?: string,
  ) {
    super(message);
  }
}

// A token verification failure from jose, as a message the caller can act on.
import { errors } from 'jose';

export function describeJoseError(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired; request a new one';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token signature is invalid';
  if (error instanceof errors.JWTClaimValidationFailed) {
    return error.reason === 'missing' ? `the token has no '${error.claim}' claim, which is required` : `the token is not valid here (${error.claim} claim)`;
  }
  if (error instanceof errors.JOSEError) return 'the token is malformed or not signed by a key this service trusts';
  return 'the token could not be verified';
}

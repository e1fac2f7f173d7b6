// An OAuth error answer of the token endpoint (RFC 6749 §5.2).
export class OAuthError extends Error {
  constructor(
    readonly error: 'invalid_grant' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_request' | 'invalid_scope',
    readonly description: string,
    readonly status: 400 | 401 = 400,
  ) {
    super(description);
  }
}

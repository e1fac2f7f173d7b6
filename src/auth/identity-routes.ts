// The built-in identity provider, Keycloak-compatible paths: token endpoint (password, client_credentials,
// refresh_token and authorization_code grants), the authorization endpoint with its login page
// (authorization-endpoint.ts), OpenID discovery, JWKS and userinfo. OAuth errors follow RFC 6749 §5.2.
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { UnauthenticatedError } from '../errors.js';
import type { IdentityRepository } from '../store/identity.repository.js';
import { authorizationEndpoint, redeemAuthorizationCode } from './authorization-endpoint.js';
import { OAuthError } from './oauth-error.js';
import { signInWithPassword } from './password-sign-in.js';
import { verifySecret } from './passwords.js';
import { SignInThrottle } from './sign-in-throttle.js';
import type { TokenService } from './token-service.js';

export interface IdentityRoutesOptions {
  realm: string;
  issuer: string;
  publicClientId: string;
  tokens: TokenService;
  identities: IdentityRepository;
  /** Other origins whose pages may use the public client (FIRMSCOPE_CLIENT_ORIGINS): they get CORS answers. */
  clientOrigins?: string[];
}

const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });
const TokenBody = Type.Object({
  access_token: Type.String(),
  token_type: Type.String(),
  expires_in: Type.Integer(),
  refresh_token: Type.String(),
  refresh_expires_in: Type.Integer(),
  id_token: Type.Optional(Type.String()),
  scope: Type.String(),
});

export const identityRoutes: FastifyPluginAsyncTypebox<IdentityRoutesOptions> = async (app, options) => {
  const { tokens, identities, realm, issuer, publicClientId } = options;
  const throttle = new SignInThrottle(identities);
  const base = `/realms/${realm}`;
  const clientOrigins = options.clientOrigins ?? [];

  // CORS for the pages of FIRMSCOPE_CLIENT_ORIGINS (a web UI served elsewhere): discovery, token, JWKS and
  // userinfo answer them; no credentials (cookies) are ever allowed cross-origin.
  if (clientOrigins.length > 0) {
    app.addHook('onSend', async (request, reply) => {
      const origin = request.headers.origin;
      void reply.header('vary', 'Origin');
      if (origin && clientOrigins.includes(origin)) void reply.header('access-control-allow-origin', origin);
    });
    app.options(`${base}/*`, { schema: { hide: true } as Record<string, unknown> }, async (request, reply) => {
      const origin = request.headers.origin;
      if (!origin || !clientOrigins.includes(origin)) return reply.status(403).send();
      return reply.status(204)
        .header('access-control-allow-methods', 'GET, POST')
        .header('access-control-allow-headers', 'authorization, content-type')
        .header('access-control-max-age', '600')
        .send();
    });
  }

  const basicCredentials = (header: string | undefined): { id?: string; secret?: string } => {
    const match = header && /^Basic\s+(\S+)$/i.exec(header);
    if (!match) return {};
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return {};
    return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  };

  app.post(
    `${base}/protocol/openid-connect/token`,
    {
      schema: {
        tags: ['identity'],
        summary: 'Token endpoint (authorization_code with PKCE, password, client_credentials, refresh_token grants)',
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Record(Type.String(), Type.String()),
        response: { 200: TokenBody, 400: OAuthErrorBody, 401: OAuthErrorBody, 429: Type.Ref('Error') },
      },
      config: { rateLimit: { max: 120, timeWindow: '1 minute' } },
    },
    async (request, reply) => {
      const form = request.body ?? {};
      const basic = basicCredentials(request.headers.authorization);
      const clientId = form.client_id ?? basic.id;
      const scope = form.scope ?? 'openid';
      void reply.header('cache-control', 'no-store');
      try {
        switch (form.grant_type) {
          case 'password': {
            if (!clientId) throw new OAuthError('invalid_request', 'client_id is required');
            if (clientId !== publicClientId) throw new OAuthError('invalid_client', `unknown client '${clientId}'`, 401);
            if (!form.username || !form.password) throw new OAuthError('invalid_request', 'username and password are required');
            const user = await signInWithPassword(throttle, identities, form.username, form.password);
            if (!user) throw new OAuthError('invalid_grant', 'Invalid user credentials');
            return await tokens.issue(user, clientId, scope);
          }
          case 'authorization_code': {
            const { user, clientId: issuedTo, scope: granted, nonce } = await redeemAuthorizationCode(identities, form);
            return await tokens.issue(user, issuedTo, granted, nonce);
          }
          case 'client_credentials': {
            const secret = form.client_secret ?? basic.secret;
            if (!clientId || !secret) throw new OAuthError('invalid_request', 'client_id and client_secret are required');
            const client = await identities.findClient(clientId);
            const ok = await verifySecret(client?.secretHash, secret);
            if (!client || !ok) throw new OAuthError('invalid_client', 'Invalid client credentials', 401);
            const user = await identities.findUser(client.userId);
            if (!user || user.status !== 'active') throw new OAuthError('invalid_client', 'this client is disabled', 401);
            return await tokens.issue(user, clientId, scope);
          }
          case 'refresh_token': {
            if (!form.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
            try {
              const { user, clientId: issuedTo, scope: grantedScope } = await tokens.verifyRefresh(form.refresh_token);
              if (clientId && clientId !== issuedTo) throw new OAuthError('invalid_grant', 'the refresh token was issued to another client');
              // The login page's session cookie is a refresh-type token too; it only ever serves the authorization endpoint.
              if (issuedTo === 'sso') throw new OAuthError('invalid_grant', 'a sign-in session is not a refresh token');
              return await tokens.issue(user, issuedTo, grantedScope);
            } catch (error) {
              if (error instanceof UnauthenticatedError) throw new OAuthError('invalid_grant', `Invalid refresh token: ${error.message}`);
              throw error;
            }
          }
          case undefined:
            throw new OAuthError('invalid_request', 'grant_type is required');
          default:
            throw new OAuthError('unsupported_grant_type', `grant_type '${form.grant_type}' is not supported; use authorization_code, password, client_credentials or refresh_token`);
        }
      } catch (error) {
        if (error instanceof OAuthError) return reply.status(error.status).send({ error: error.error, error_description: error.description });
        throw error;
      }
    },
  );

  app.get(
    `${base}/.well-known/openid-configuration`,
    { schema: { tags: ['identity'], summary: 'OpenID Connect discovery document', response: { 200: Type.Record(Type.String(), Type.Unknown()) } } },
    async () => ({
      issuer,
      token_endpoint: `${issuer}/protocol/openid-connect/token`,
      jwks_uri: `${issuer}/protocol/openid-connect/certs`,
      userinfo_endpoint: `${issuer}/protocol/openid-connect/userinfo`,
      end_session_endpoint: `${issuer}/protocol/openid-connect/logout`,
      authorization_endpoint: `${issuer}/protocol/openid-connect/auth`,
      grant_types_supported: ['authorization_code', 'password', 'client_credentials', 'refresh_token'],
      response_types_supported: ['code'],
      response_modes_supported: ['query', 'fragment'],
      code_challenge_methods_supported: ['S256'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'],
      scopes_supported: ['openid', 'email', 'profile'],
      claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'email', 'realm_access', 'org'],
    }),
  );

  app.get(
    `${base}/protocol/openid-connect/certs`,
    { schema: { tags: ['identity'], summary: 'JSON Web Key Set of the token signing keys', response: { 200: Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) }) } } },
    async () => tokens.jwks,
  );

  app.get(
    `${base}/protocol/openid-connect/userinfo`,
    { schema: { tags: ['identity'], summary: 'Claims about the bearer of an access token', response: { 200: Type.Object({ sub: Type.String(), email: Type.String(), role: Type.String() }), 401: Type.Ref('Error') } } },
    async (request) => {
      const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
      if (!match) throw new UnauthenticatedError('missing bearer token');
      const principal = await tokens.authenticate(match[1]!);
      return { sub: principal.userId, email: principal.email, role: principal.role };
    },
  );

  await app.register(authorizationEndpoint, {
    path: `${base}/protocol/openid-connect/auth`, logoutPath: `${base}/protocol/openid-connect/logout`, baseUrl: new URL(issuer).origin,
    publicClientId, identities, throttle, tokens, clientOrigins,
  });
};

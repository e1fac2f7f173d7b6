// The identity provider's authorization endpoint (OAuth 2.0 authorization code flow with PKCE, RFC 7636 S256
// only) and the redemption of its codes at the token endpoint. GET shows the login page; POST checks the CSRF
// token (double submit: an HttpOnly SameSite=Strict cookie and a hidden field) and the password, then redirects
// to the client's redirect URI with a single-use code that lives one minute. Only public clients on this
// service's own origin (the web UI, the API docs page) or of FIRMSCOPE_CLIENT_ORIGINS may use it.
// A sign-in also sets an HttpOnly session cookie (a refresh-type JWT of the pseudo-client `sso`, scoped to the
// realm's openid-connect paths): while it is valid, the endpoint answers without the form (a reload of the web UI,
// whose tokens live in memory only, signs in again without a password); the logout endpoint clears it.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityRepository, User } from '../store/identity.repository.js';
import { renderAuthorizationErrorPage, renderLoginPage, renderSignedOutPage } from './login-page.js';
import { OAuthError } from './oauth-error.js';
import { signInWithPassword } from './password-sign-in.js';
import type { SignInThrottle } from './sign-in-throttle.js';
import type { TokenService } from './token-service.js';
import { UnauthenticatedError } from '../errors.js';

export interface AuthorizationEndpointOptions {
  /** The endpoint's path, e.g. /realms/FirmscopeRealm/protocol/openid-connect/auth. */
  path: string;
  /** The service's public base URL: redirect URIs must be on its origin (or one of clientOrigins). */
  baseUrl: string;
  /** Other origins whose pages may use the public client (FIRMSCOPE_CLIENT_ORIGINS). */
  clientOrigins?: string[];
  publicClientId: string;
  /** The realm's end-session path, e.g. /realms/FirmscopeRealm/protocol/openid-connect/logout. */
  logoutPath: string;
  identities: IdentityRepository;
  throttle: SignInThrottle;
  tokens: TokenService;
}

/** The pseudo-client whose refresh-type token is the sign-in session cookie. */
const SESSION_CLIENT = 'sso';
const SESSION_COOKIE = 'firmscope_session';

const CODE_SECONDS = 60;
const CSRF_COOKIE = 'firmscope_login_csrf';
/** The authorization request parameters the login form carries through. */
const CARRIED = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method', 'response_mode'] as const;
const MAX_PARAM = 2048;

const sha256 = (value: string, encoding: 'hex' | 'base64url') => createHash('sha256').update(value).digest(encoding);

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

type Params = Partial<Record<(typeof CARRIED)[number], string>>;

function carried(source: Record<string, unknown>): Params {
  const params: Params = {};
  for (const name of CARRIED) {
    const value = source[name];
    if (typeof value === 'string' && value.length <= MAX_PARAM) params[name] = value;
  }
  return params;
}

/** Why the client or its redirect URI is unacceptable (shown on our own page: never redirect there), or undefined. */
function clientProblem(params: Params, publicClientId: string, origins: string[]): string | undefined {
  if (!params.client_id) return 'client_id is missing.';
  if (params.client_id !== publicClientId) return `Unknown client '${params.client_id}'.`;
  if (!params.redirect_uri) return 'redirect_uri is missing.';
  let target: URL;
  try {
    target = new URL(params.redirect_uri);
  } catch {
    return 'redirect_uri is not a URL.';
  }
  if (!origins.includes(target.origin) || target.hash) return `redirect_uri must be a page of ${origins.join(' or ')}.`;
  return undefined;
}

/** The OAuth error to send back to the client for a malformed request, or undefined. */
function requestProblem(params: Params): { error: string; description: string } | undefined {
  if (params.response_type !== 'code') return { error: 'unsupported_response_type', description: 'only response_type=code is supported' };
  if (!params.code_challenge || !/^[A-Za-z0-9_-]{43}$/.test(params.code_challenge)) return { error: 'invalid_request', description: 'PKCE is required: code_challenge must be BASE64URL(SHA-256(code_verifier))' };
  if (params.code_challenge_method !== 'S256') return { error: 'invalid_request', description: 'code_challenge_method must be S256' };
  if (params.response_mode && params.response_mode !== 'query' && params.response_mode !== 'fragment') return { error: 'invalid_request', description: 'response_mode must be query or fragment' };
  return undefined;
}

/** The redirect URI with the answer in its query, or in its fragment (response_mode=fragment: never sent to a server). */
function answerUrl(params: Params, answer: Record<string, string>): string {
  const url = new URL(params.redirect_uri!);
  const values = new URLSearchParams({ ...answer, ...(params.state ? { state: params.state } : {}) });
  if (params.response_mode === 'fragment') url.hash = values.toString();
  else for (const [key, value] of values) url.searchParams.set(key, value);
  return url.toString();
}

export const authorizationEndpoint: FastifyPluginAsyncTypebox<AuthorizationEndpointOptions> = async (app, options) => {
  const { path, logoutPath, baseUrl, publicClientId, identities, throttle, tokens } = options;
  const origin = new URL(baseUrl).origin;
  const origins = [origin, ...(options.clientOrigins ?? [])];
  const secureCookie = baseUrl.startsWith('https:');
  const sessionPath = path.slice(0, path.lastIndexOf('/'));
  const sessionCookie = (value: string, seconds: number) =>
    `${SESSION_COOKIE}=${value}; Path=${sessionPath}; HttpOnly; SameSite=Lax; Max-Age=${seconds}${secureCookie ? '; Secure' : ''}`;

  /** The user of a valid session cookie, or undefined. */
  const sessionUser = async (request: FastifyRequest): Promise<User | undefined> => {
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (!token) return undefined;
    try {
      const { user, clientId } = await tokens.verifyRefresh(token);
      return clientId === SESSION_CLIENT ? user : undefined;
    } catch (error) {
      if (error instanceof UnauthenticatedError) return undefined;
      throw error;
    }
  };

  /** Stores a code for `user` and redirects to the client with it. */
  const grantCode = async (reply: FastifyReply, params: Params, user: User) => {
    const code = randomBytes(32).toString('base64url');
    const now = new Date();
    await identities.addAuthorizationCode({
      codeHash: sha256(code, 'hex'), clientId: params.client_id!, userId: user.id, redirectUri: params.redirect_uri!,
      codeChallenge: params.code_challenge!, scope: params.scope || 'openid', nonce: params.nonce ?? null,
      createTime: now.toISOString(), expireTime: new Date(now.getTime() + CODE_SECONDS * 1000).toISOString(),
    });
    void reply.header('cache-control', 'no-store');
    return reply.redirect(answerUrl(params, { code }), 303);
  };

  const page = (reply: FastifyReply, status: number, html: string, styleNonce: string, redirectOrigin?: string) =>
    reply
      .status(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', `default-src 'none'; style-src 'nonce-${styleNonce}'; form-action 'self' ${redirectOrigin ?? ''}; frame-ancestors 'none'; base-uri 'none'`)
      .send(html);

  const showLogin = (request: FastifyRequest, reply: FastifyReply, params: Params, status: number, extra: { email?: string; error?: string } = {}) => {
    const csrfToken = randomBytes(32).toString('base64url');
    const styleNonce = randomBytes(16).toString('base64url');
    const cookie = `${CSRF_COOKIE}=${csrfToken}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=3600${secureCookie ? '; Secure' : ''}`;
    void reply.header('set-cookie', cookie);
    const hidden = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Record<string, string>;
    // The form's answer redirects to the client's page, which form-action must allow (checked valid before this).
    return page(reply, status, renderLoginPage({ hidden, csrfToken, styleNonce, action: path, ...extra }), styleNonce, new URL(params.redirect_uri!).origin);
  };

  /** Checks client and request; answers (error page or error redirect) and returns false when they are not valid. */
  const validate = (reply: FastifyReply, params: Params): boolean => {
    const problem = clientProblem(params, publicClientId, origins);
    if (problem) {
      const styleNonce = randomBytes(16).toString('base64url');
      void page(reply, 400, renderAuthorizationErrorPage(problem, styleNonce), styleNonce);
      return false;
    }
    const invalid = requestProblem(params);
    if (invalid) {
      void reply.redirect(answerUrl(params, { error: invalid.error, error_description: invalid.description }), 303);
      return false;
    }
    return true;
  };

  const hide = { hide: true } as Record<string, unknown>;

  app.get(path, { schema: { ...hide, querystring: Type.Record(Type.String(), Type.String()) } }, async (request, reply) => {
    const params = carried(request.query);
    if (!validate(reply, params)) return reply;
    const prompt = (request.query as Record<string, string>).prompt;
    const user = prompt === 'login' ? undefined : await sessionUser(request);
    if (user) return grantCode(reply, params, user);
    if (prompt === 'none') return reply.redirect(answerUrl(params, { error: 'login_required', error_description: 'sign in interactively' }), 303);
    return showLogin(request, reply, params, 200);
  });

  app.post(
    path,
    { schema: { ...hide, body: Type.Record(Type.String(), Type.String()) }, config: { rateLimit: { max: 60, timeWindow: '1 minute' } } },
    async (request, reply) => {
      const form = request.body ?? {};
      const params = carried(form);
      if (!validate(reply, params)) return reply;
      // CSRF: the form's token must match the SameSite=Strict cookie set with the form; a browser sending this
      // POST from another site has no such cookie. An Origin header, when present, must be ours as well.
      const cookie = readCookie(request.headers.cookie, CSRF_COOKIE);
      const requestOrigin = request.headers.origin;
      if (!cookie || !form.csrf_token || !sameSecret(cookie, form.csrf_token) || (requestOrigin && requestOrigin !== origin && requestOrigin !== 'null')) {
        return showLogin(request, reply, params, 403, { email: form.username, error: 'The sign-in form expired or came from another site. Please sign in again.' });
      }
      const user = form.username && form.password ? await signInWithPassword(throttle, identities, form.username.trim(), form.password) : undefined;
      if (!user) return showLogin(request, reply, params, 401, { email: form.username, error: 'Invalid e-mail or password.' });
      const session = await tokens.issue(user, SESSION_CLIENT, SESSION_CLIENT);
      void reply.header('set-cookie', [
        `${CSRF_COOKIE}=; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=0${secureCookie ? '; Secure' : ''}`,
        sessionCookie(session.refresh_token, session.refresh_expires_in),
      ]);
      return grantCode(reply, params, user);
    },
  );

  // End of the sign-in session (OpenID RP-initiated logout, without id_token_hint: no token in a URL).
  app.get(logoutPath, { schema: { ...hide, querystring: Type.Record(Type.String(), Type.String()) } }, async (request, reply) => {
    void reply.header('set-cookie', sessionCookie('', 0)).header('cache-control', 'no-store');
    const target = (request.query as Record<string, string>).post_logout_redirect_uri;
    let back: URL | undefined;
    try {
      back = target ? new URL(target) : undefined;
    } catch { /* not a URL: show the page below */ }
    if (back && origins.includes(back.origin)) return reply.redirect(back.toString(), 303);
    const styleNonce = randomBytes(16).toString('base64url');
    return page(reply, 200, renderSignedOutPage(styleNonce), styleNonce);
  });
};

/**
 * The user an authorization code was issued to, for the token endpoint's authorization_code grant: the code must
 * exist, be unexpired and unused, match client and redirect URI, and SHA-256 of code_verifier must be its challenge.
 */
export async function redeemAuthorizationCode(
  identities: IdentityRepository,
  form: Record<string, string | undefined>,
): Promise<{ user: User; clientId: string; scope: string; nonce?: string }> {
  const { code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier } = form;
  if (!code || !redirectUri || !clientId || !verifier) throw new OAuthError('invalid_request', 'code, redirect_uri, client_id and code_verifier are required');
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 unreserved characters (RFC 7636)');
  const grant = await identities.redeemAuthorizationCode(sha256(code, 'hex'));
  const refused = (why: string) => new OAuthError('invalid_grant', why);
  if (!grant) throw refused('the authorization code is unknown or was already used');
  if (grant.expireTime < new Date().toISOString()) throw refused('the authorization code expired');
  if (grant.clientId !== clientId) throw refused('the authorization code was issued to another client');
  if (grant.redirectUri !== redirectUri) throw refused('redirect_uri differs from the authorization request');
  if (!sameSecret(sha256(verifier, 'base64url'), grant.codeChallenge)) throw refused('code_verifier does not match the code_challenge (PKCE S256)');
  const user = await identities.findUser(grant.userId);
  if (!user || user.status !== 'active') throw refused('the account no longer exists or is disabled');
  return { user, clientId, scope: grant.scope, ...(grant.nonce ? { nonce: grant.nonce } : {}) };
}

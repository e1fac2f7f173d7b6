// The login page and the authorization code flow with PKCE against the real server: CSRF, single use, S256.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, REALM_TOKEN_PATH, startTestServer, type TestServer } from '../support/server.js';

const AUTH_PATH = '/realms/FirmscopeRealm/protocol/openid-connect/auth';
let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(params: Record<string, string>): string {
  return `${server.base}${AUTH_PATH}?${new URLSearchParams(params)}`;
}

/** GETs the login page, then POSTs the form as a browser would; returns the final answer (not followed). */
async function signIn(query: Record<string, string>, password = ADMIN.password, tamper?: (form: URLSearchParams, cookie: string) => [URLSearchParams, string]) {
  const page = await fetch(authorizeUrl(query));
  expect(page.status).toBe(200);
  const html = await page.text();
  const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
  const form = new URLSearchParams();
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) form.set(match[1]!, match[2]!.replace(/&amp;/g, '&'));
  form.set('username', ADMIN.email);
  form.set('password', password);
  const [body, sentCookie] = tamper ? tamper(form, cookie) : [form, cookie];
  return fetch(`${server.base}${AUTH_PATH}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: sentCookie }, body });
}

const redeem = (params: Record<string, string>) =>
  fetch(`${server.base}${REALM_TOKEN_PATH}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'FirmscopeClient', ...params }) });

describe('authorization endpoint with login page', () => {
  it('is announced by discovery', async () => {
    const doc: any = await (await fetch(`${server.base}/realms/FirmscopeRealm/.well-known/openid-configuration`)).json();
    expect(doc.authorization_endpoint).toBe(`${server.base}${AUTH_PATH}`);
    expect(doc.code_challenge_methods_supported).toEqual(['S256']);
    expect(doc.grant_types_supported).toContain('authorization_code');
    expect(doc.response_types_supported).toEqual(['code']);
  });

  it('signs in, redirects with a code, and the code is redeemed once with the right verifier', async () => {
    const { verifier, challenge } = pkce();
    const redirectUri = `${server.base}/`;
    const page = await fetch(authorizeUrl({ response_type: 'code', client_id: 'FirmscopeClient', redirect_uri: redirectUri, state: 's1', code_challenge: challenge, code_challenge_method: 'S256' }));
    const html = await page.text();
    expect(html).toContain('<form method="post"');
    expect(html).not.toMatch(/<script/i);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);

    const answer = await signIn({ response_type: 'code', client_id: 'FirmscopeClient', redirect_uri: redirectUri, state: 's1', nonce: 'n1', scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256', response_mode: 'fragment' });
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get('location')!);
    expect(location.search).toBe('');
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('state')).toBe('s1');
    const code = fragment.get('code')!;

    const wrong = await redeem({ code, redirect_uri: redirectUri, code_verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as any).error_description).toMatch(/PKCE/);
    // The failed attempt consumed the code: it is single use, whatever the outcome.
    const again = await redeem({ code, redirect_uri: redirectUri, code_verifier: verifier });
    expect(((await again.json()) as any).error).toBe('invalid_grant');
  });

  it('issues tokens for the right verifier, with the nonce in the ID token', async () => {
    const { verifier, challenge } = pkce();
    const redirectUri = `${server.base}/docs/static/oauth2-redirect.html`;
    const answer = await signIn({ response_type: 'code', client_id: 'FirmscopeClient', redirect_uri: redirectUri, state: 'x', nonce: 'n2', scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' });
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    const tokens: any = await (await redeem({ code, redirect_uri: redirectUri, code_verifier: verifier })).json();
    expect(tokens.access_token).toBeTruthy();
    const idClaims = JSON.parse(Buffer.from(tokens.id_token.split('.')[1], 'base64url').toString());
    expect(idClaims.nonce).toBe('n2');
    const me = await fetch(`${server.base}/api/v4/users/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
  });

  it('refuses a form without the CSRF cookie, and a wrong password, with the login page again', async () => {
    const { challenge } = pkce();
    const query = { response_type: 'code', client_id: 'FirmscopeClient', redirect_uri: `${server.base}/`, code_challenge: challenge, code_challenge_method: 'S256' };
    const forged = await signIn(query, ADMIN.password, (form) => [form, 'firmscope_login_csrf=forged']);
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('another site');
    const wrong = await signIn(query, 'not-the-password');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('Invalid e-mail or password');
  });

  it('never redirects to another origin, and sends request errors back to the client', async () => {
    const { challenge } = pkce();
    const foreign = await fetch(authorizeUrl({ response_type: 'code', client_id: 'FirmscopeClient', redirect_uri: 'https://evil.example/cb', code_challenge: challenge, code_challenge_method: 'S256' }), { redirect: 'manual' });
    expect(foreign.status).toBe(400);
    expect(await foreign.text()).toContain('must be a page of');
    const unknown = await fetch(authorizeUrl({ response_type: 'code', client_id: 'other', redirect_uri: `${server.base}/`, code_challenge: challenge, code_challenge_method: 'S256' }), { redirect: 'manual' });
    expect(unknown.status).toBe(400);
    const noPkce = await fetch(authorizeUrl({ response_type: 'code', client_id: 'FirmscopeClient', redirect_uri: `${server.base}/`, state: 'q' }), { redirect: 'manual' });
    expect(noPkce.status).toBe(303);
    const location = new URL(noPkce.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('state')).toBe('q');
  });

  it('keeps a sign-in session (HttpOnly cookie) that answers without the form until logout', async () => {
    const { verifier, challenge } = pkce();
    const query = { response_type: 'code', client_id: 'FirmscopeClient', redirect_uri: `${server.base}/`, code_challenge: challenge, code_challenge_method: 'S256', scope: 'openid' };
    const answer = await signIn(query);
    const session = answer.headers.getSetCookie().find((c) => c.startsWith('firmscope_session='))!;
    expect(session).toMatch(/HttpOnly; SameSite=Lax/);
    const cookie = session.split(';')[0]!;
    // The session cookie is not a refresh token for anyone.
    const misuse = await fetch(`${server.base}${REALM_TOKEN_PATH}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: cookie.slice(cookie.indexOf('=') + 1) }) });
    expect(misuse.status).toBe(400);

    const again = await fetch(authorizeUrl(query), { redirect: 'manual', headers: { cookie } });
    expect(again.status).toBe(303);
    const code = new URL(again.headers.get('location')!).searchParams.get('code')!;
    expect((await redeem({ code, redirect_uri: `${server.base}/`, code_verifier: verifier })).status).toBe(200);
    const forced = await fetch(authorizeUrl({ ...query, prompt: 'login' }), { redirect: 'manual', headers: { cookie } });
    expect(forced.status).toBe(200);

    const logout = await fetch(`${server.base}/realms/FirmscopeRealm/protocol/openid-connect/logout?post_logout_redirect_uri=${encodeURIComponent(`${server.base}/?signed-out`)}`, { redirect: 'manual', headers: { cookie } });
    expect(logout.status).toBe(303);
    expect(logout.headers.get('location')).toBe(`${server.base}/?signed-out`);
    expect(logout.headers.get('set-cookie')).toMatch(/firmscope_session=; .*Max-Age=0/);
    const silent = await fetch(authorizeUrl({ ...query, prompt: 'none' }), { redirect: 'manual' });
    expect(new URL(silent.headers.get('location')!).searchParams.get('error')).toBe('login_required');
  });
});

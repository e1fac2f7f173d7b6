// The web UI against an external OpenID provider, in a real browser. There is no Keycloak here, so a second
// Firmscope server plays the external realm (its built-in provider has Keycloak's paths, token claims and JWKS):
// the first server accepts its tokens (FIRMSCOPE_EXTERNAL_ISSUER/CLIENT) and tells the UI to sign in there
// (FIRMSCOPE_UI_OIDC_ISSUER); the provider lets the UI's origin use its public client (FIRMSCOPE_CLIENT_ORIGINS:
// redirect URIs and CORS, as a Keycloak client's valid redirect URIs and web origins do).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shown } from '../support/browser.js';
import { needCommands } from '../support/requirements.js';
import { ADMIN, call, freePort, passwordToken, startTestServer, type TestServer } from '../support/server.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const EXTERNAL_USER = { email: 'analyst@realm.example', password: 'analyst-password-1' };

const ready = needCommands(['chromium'], 'the browser tests of the web UI') && existsSync(join(ROOT, 'web', 'dist', 'index.html'));

describe.runIf(ready)('web UI signed in by an external OpenID provider', () => {
  let provider: TestServer;
  let service: TestServer;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const servicePort = await freePort();
    const serviceOrigin = `http://127.0.0.1:${servicePort}`;
    provider = await startTestServer({ env: { FIRMSCOPE_CLIENT_ORIGINS: serviceOrigin } });
    const issuer = `${provider.base}/realms/FirmscopeRealm`;
    service = await startTestServer({
      env: {
        PORT: String(servicePort), FIRMSCOPE_BASE_URL: serviceOrigin,
        FIRMSCOPE_EXTERNAL_ISSUER: issuer, FIRMSCOPE_EXTERNAL_CLIENT: 'FirmscopeClient', FIRMSCOPE_UI_OIDC_ISSUER: issuer,
      },
    });
    // The realm's user (an editor there); the service has never heard of them.
    const providerAdmin = await passwordToken(provider.base, ADMIN.email, ADMIN.password);
    expect((await call(provider.base, providerAdmin, 'POST', '/api/v4/users', { ...EXTERNAL_USER, role: 'editor' })).status).toBe(201);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  }, 120_000);

  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await service?.close();
    await provider?.close();
  });

  it('serves the external provider in /web-config.json and refuses a UI issuer the API would not accept', async () => {
    expect(await (await fetch(`${service.base}/web-config.json`)).json()).toEqual({ authority: `${provider.base}/realms/FirmscopeRealm`, clientId: 'FirmscopeClient' });
    await expect(startTestServer({ env: { FIRMSCOPE_UI_OIDC_ISSUER: `${provider.base}/realms/FirmscopeRealm` } })).rejects.toThrow(/FIRMSCOPE_UI_OIDC_ISSUER=.*FIRMSCOPE_EXTERNAL_ISSUER/);
  });

  it('signs in at the provider, uses the API with its token, and signs out there', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
    await page.clock.install();
    await page.goto(`${service.base}/`);
    // The provider's login page, on the provider's origin.
    await page.waitForURL((url) => url.origin === new URL(provider.base).origin && url.pathname.endsWith('/protocol/openid-connect/auth'));
    await page.getByLabel('E-mail').fill(EXTERNAL_USER.email);
    await page.getByLabel('Password').fill(EXTERNAL_USER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back on the service, signed in: the code was redeemed at the provider's token endpoint across origins (CORS).
    await shown(page.getByRole('button', { name: 'Sign out' }));
    expect(page.url()).toBe(`${service.base}/`);
    await shown(page.getByText('No products yet.'));
    // The service bound the external subject to a new local user of its default organisation, with the realm role.
    await expect.poll(async () => page.locator('.who .muted').getAttribute('title')).toBe('Role: editor');
    // An editor may create a product: the write went through with the external token.
    await page.getByRole('button', { name: 'New product' }).click();
    await page.getByLabel('Name').fill('External product');
    await page.getByRole('button', { name: 'Create product' }).click();
    await shown(page.getByRole('heading', { level: 1, name: 'External product' }));
    const serviceAdmin = await passwordToken(service.base, ADMIN.email, ADMIN.password);
    const products = await call(service.base, serviceAdmin, 'GET', '/api/v4/products');
    expect(products.body.products.map((p: { name: string }) => p.name)).toContain('External product');
    // Silent renew: near the token's end (a fake page clock) the UI refreshes it at the provider, across origins,
    // and goes on working without a notice.
    const renewed = page.waitForResponse((r) => r.url().endsWith('/protocol/openid-connect/token') && (r.request().postData() ?? '').includes('grant_type=refresh_token'));
    await page.clock.fastForward('29:30');
    expect((await renewed).status()).toBe(200);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
    await shown(page.getByRole('link', { name: 'External product', exact: true }));
    expect(await page.locator('.session-expired').count()).toBe(0);

    // The provider, not the service, holds the password: the service has no such user to sign in with.
    await expect(passwordToken(service.base, EXTERNAL_USER.email, EXTERNAL_USER.password)).rejects.toThrow(/Invalid user credentials/);

    // Sign out ends the provider's session and comes back to the service.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await shown(page.getByText('You are signed out.'));
    expect(new URL(page.url()).origin).toBe(new URL(service.base).origin);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.origin === new URL(provider.base).origin);
    await shown(page.getByLabel('Password'));
    await context.close();
  }, 120_000);

  it('gives CORS answers only to the listed origins', async () => {
    const discovery = `${provider.base}/realms/FirmscopeRealm/.well-known/openid-configuration`;
    const allowed = await fetch(discovery, { headers: { origin: service.base } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(service.base);
    const other = await fetch(discovery, { headers: { origin: 'http://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // A redirect URI on another origin than the listed ones is refused on the provider's own page.
    const auth = new URL(`${provider.base}/realms/FirmscopeRealm/protocol/openid-connect/auth`);
    for (const [k, v] of Object.entries({ client_id: 'FirmscopeClient', response_type: 'code', redirect_uri: 'http://evil.example/', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' })) auth.searchParams.set(k, v);
    const refused = await fetch(auth, { redirect: 'manual' });
    expect(refused.status).toBe(400);
  });
});

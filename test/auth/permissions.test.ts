// The auth and permission matrix over HTTP: every /api/v4 route with no token, bad tokens, each role, and
// another organisation's admin.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningKey } from '../../src/auth/signing-keys.js';
import { roleAllows, type Permission } from '../../src/auth/permissions.js';
import { addOrg } from '../../src/services/identity-admin.js';
import { ADMIN, call, passwordToken, REALM_TOKEN_PATH, startTestServer, type TestServer } from '../support/server.js';

type Route = { method: string; path: string; permission: Permission; body?: unknown; tenant: boolean };

describe('auth and permissions', () => {
  let t: TestServer;
  const tokens: Record<string, string> = {};
  let routes: Route[];
  let productId: string;

  beforeAll(async () => {
    t = await startTestServer({ env: { FIRMSCOPE_WORKERS: '0' } });
    tokens.admin = await passwordToken(t.base, ADMIN.email, ADMIN.password);
    for (const role of ['editor', 'viewer']) {
      const r = await call(t.base, tokens.admin, 'POST', '/api/v4/users', { email: `${role}@example.com`, password: `${role}-password`, role });
      expect(r.status).toBe(201);
      tokens[role] = await passwordToken(t.base, `${role}@example.com`, `${role}-password`);
    }
    await addOrg(t.server.runtime.repos.identities, { name: 'other', adminEmail: 'admin@other.test', adminPassword: 'other-password' });
    tokens.other = await passwordToken(t.base, 'admin@other.test', 'other-password');

    productId = (await call(t.base, tokens.admin, 'POST', '/api/v4/products', { name: 'p' })).body.id.split('/')[1];
    const form = new FormData();
    form.set('imageName', 'i');
    form.set('file', new Blob([Buffer.from('firmware bytes')]), 'i.bin');
    const image = await call(t.base, tokens.admin, 'POST', `/api/v4/products/${productId}/images:upload`, form);
    const imageId = image.body.id;
    const scanId = image.body.scans[0].id;
    const findingId = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const fileId = '01ARZ3NDEKTSV4RRFFQ69G5FAW';
    const img = `/api/v4/products/${productId}/images/${imageId}`;
    const ruleSource = 'rule permission_probe { strings: $a = "PERMISSION-PROBE" condition: $a }';
    const rule = await call(t.base, tokens.admin, 'POST', '/api/v4/rules', { name: 'probe', source: ruleSource });
    expect(rule.status).toBe(201);
    const me = await call(t.base, tokens.admin, 'GET', '/api/v4/users/me');
    const webhook = await t.server.runtime.repos.webhooks.create({ orgId: me.body.organisation.id, url: 'https://hooks.example.com/p', events: ['image.created'], description: '', secret: 'whsec_cHJvYmVwcm9iZXByb2JlcHJvYmVwcm9iZXByb2I=', authorId: null });
    const delivery = await t.server.runtime.repos.webhooks.addDelivery({ webhookId: webhook.id, eventType: 'image.created', payload: '{}' });
    const hook = `/api/v4/webhooks/${webhook.id}`;
    routes = [
      { method: 'GET', path: '/api/v4/users/me', permission: 'users.view', tenant: false },
      { method: 'GET', path: '/api/v4/users', permission: 'users.manage', tenant: false },
      { method: 'POST', path: '/api/v4/users', permission: 'users.manage', body: { email: 'n@example.com', password: 'n-password', role: 'viewer' }, tenant: false },
      { method: 'GET', path: '/api/v4/roles', permission: 'users.view', tenant: false },
      { method: 'POST', path: '/api/v4/clients', permission: 'clients.manage', body: { name: 'ci', role: 'viewer' }, tenant: false },
      { method: 'GET', path: '/api/v4/clients', permission: 'clients.manage', tenant: false },
      { method: 'GET', path: '/api/v4/products', permission: 'products.view', tenant: false },
      { method: 'POST', path: '/api/v4/products', permission: 'products.create', body: { name: 'q' }, tenant: false },
      { method: 'GET', path: `/api/v4/products/${productId}`, permission: 'products.view', tenant: true },
      { method: 'PATCH', path: `/api/v4/products/${productId}`, permission: 'products.update', body: { description: 'd' }, tenant: true },
      { method: 'GET', path: `/api/v4/products/${productId}/images`, permission: 'images.view', tenant: true },
      { method: 'GET', path: img, permission: 'images.view', tenant: true },
      { method: 'PATCH', path: img, permission: 'images.update', body: { version: '2' }, tenant: true },
      { method: 'GET', path: `/api/v4/products/${productId}/tempFiles:generateUploadUrl`, permission: 'images.create', tenant: true },
      { method: 'POST', path: `/api/v4/products/${productId}/images:upload?imageName=x&tempFileId=${fileId}`, permission: 'images.create', tenant: true },
      { method: 'GET', path: `${img}/files`, permission: 'images.view', tenant: true },
      { method: 'GET', path: `${img}/files/${fileId}`, permission: 'images.view', tenant: true },
      { method: 'GET', path: `${img}/files/${fileId}/download`, permission: 'images.view', tenant: true },
      { method: 'POST', path: `${img}/files`, permission: 'images.update', tenant: true },
      { method: 'GET', path: `${img}/scans?status=true`, permission: 'scans.view', tenant: true },
      { method: 'GET', path: `${img}/scans/${scanId}`, permission: 'scans.view', tenant: true },
      { method: 'POST', path: `${img}/scans`, permission: 'scans.create', tenant: true },
      { method: 'POST', path: `${img}/scans/${scanId}/states`, permission: 'scans.update', body: { type: 'cancelled' }, tenant: true },
      { method: 'GET', path: `${img}/scans/${scanId}/components`, permission: 'scans.view', tenant: true },
      { method: 'GET', path: `${img}/scans/${scanId}/problems`, permission: 'scans.view', tenant: true },
      { method: 'GET', path: `${img}/scans/${scanId}/fileTree`, permission: 'scans.view', tenant: true },
      { method: 'GET', path: `${img}/scans/${scanId}/fileHead?path=i.bin`, permission: 'scans.view', tenant: true },
      { method: 'GET', path: `${img}/scans/${scanId}/states`, permission: 'scans.view', tenant: true },
      { method: 'POST', path: '/api/v4/grids/findings:gridList', permission: 'findings.view', body: { filters: [{ field: 'productId', value: productId }] }, tenant: false },
      { method: 'GET', path: `/api/v4/products/${productId}/findings/${findingId}`, permission: 'findings.view', tenant: true },
      { method: 'PATCH', path: `/api/v4/products/${productId}/findings/${findingId}`, permission: 'findings.update', body: { issueStatus: 'rejected' }, tenant: true },
      { method: 'POST', path: `/api/v4/products/${productId}/findings/${findingId}/CreateFindingState`, permission: 'findings.update', body: { status: 'rejected' }, tenant: true },
      { method: 'GET', path: `${img}/sbomReport:cycloneDX?contentType=json`, permission: 'reports.view', tenant: true },
      { method: 'GET', path: `${img}/sbomReport:SPDX?contentType=json`, permission: 'reports.view', tenant: true },
      { method: 'GET', path: `${img}/cbomReport:cycloneDX`, permission: 'reports.view', tenant: true },
      { method: 'GET', path: `${img}/cryptographicMaterialsReport?mode=pqc-compliance&contentType=json`, permission: 'reports.view', tenant: true },
      { method: 'GET', path: `${img}/vexReport:openVEX`, permission: 'reports.view', tenant: true },
      { method: 'GET', path: `${img}/findingsReport:pdf`, permission: 'reports.view', tenant: true },
      { method: 'POST', path: `${img}/findingsReport:json`, permission: 'reports.view', body: {}, tenant: true },
      { method: 'POST', path: `${img}/findingsReport:sarif`, permission: 'reports.view', body: {}, tenant: true },
      { method: 'POST', path: `${img}/findingsReport:download?contentType=csv`, permission: 'reports.view', body: {}, tenant: true },
      { method: 'GET', path: `${img}/vexReport:cycloneDX`, permission: 'reports.view', tenant: true },
      { method: 'POST', path: '/api/v4/grids/cryptographicAssets:gridList', permission: 'findings.view', body: { filters: [{ field: 'productId', value: productId }] }, tenant: false },
      { method: 'POST', path: '/api/v4/grids/binaries:gridList', permission: 'findings.view', body: { filters: [{ field: 'productId', value: productId }] }, tenant: false },
      { method: 'GET', path: `/api/v4/products/${productId}/findings/-/escalations`, permission: 'findings.view', tenant: true },
      { method: 'POST', path: `/api/v4/products/${productId}/findings/-/escalations:acknowledge`, permission: 'findings.update', body: { ids: [findingId] }, tenant: true },
      { method: 'GET', path: '/api/v4/rules', permission: 'rules.view', tenant: false },
      { method: 'POST', path: '/api/v4/rules', permission: 'rules.manage', body: { name: 'probe 2', source: ruleSource }, tenant: false },
      { method: 'PATCH', path: `/api/v4/rules/${rule.body.id}`, permission: 'rules.manage', body: { enabled: false }, tenant: true },
      { method: 'DELETE', path: `/api/v4/rules/${rule.body.id}`, permission: 'rules.manage', tenant: true },
      { method: 'GET', path: '/api/v4/webhooks', permission: 'webhooks.manage', tenant: false },
      { method: 'POST', path: '/api/v4/webhooks', permission: 'webhooks.manage', body: { url: 'http://127.0.0.1:9/hook', events: ['scan.completed'] }, tenant: false },
      { method: 'GET', path: hook, permission: 'webhooks.manage', tenant: true },
      { method: 'PATCH', path: hook, permission: 'webhooks.manage', body: { description: 'probe' }, tenant: true },
      { method: 'POST', path: `${hook}:rotateSecret`, permission: 'webhooks.manage', tenant: true },
      { method: 'POST', path: `${hook}:test`, permission: 'webhooks.manage', tenant: true },
      { method: 'GET', path: `${hook}/deliveries`, permission: 'webhooks.manage', tenant: true },
      { method: 'POST', path: `${hook}/deliveries/${delivery.id}:redeliver`, permission: 'webhooks.manage', tenant: true },
      { method: 'DELETE', path: hook, permission: 'webhooks.manage', tenant: true },
    ];
  });
  afterAll(async () => t?.close());

  it('covers every authenticated operation of the OpenAPI document', async () => {
    const openapi: any = await (await fetch(`${t.base}/api/v4/openapi.json`)).json();
    // Routes without a bearer token by design: the signed upload PUT and the OpenAPI document itself.
    const unauthenticated = new Set(['PUT /uploads/{}', 'GET /api/v4/openapi.json']);
    const shape = (method: string, path: string) => `${method.toUpperCase()} ${path.split('?')[0]!.replace(/\{[^}]+\}|[0-9A-HJKMNP-TV-Z]{26}/g, '{}')}`;
    const covered = new Set(routes.map((r) => shape(r.method, r.path)));
    const operations = Object.entries(openapi.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m)).map((m) => shape(m, path)));
    const missing = operations.filter((op) => op.includes('/api/v4/') && !unauthenticated.has(op) && !covered.has(op));
    expect(missing).toEqual([]);
  });

  it('every route refuses a missing, malformed, forged or expired token with 401', async () => {
    const key = await loadSigningKey(t.server.runtime.repos.identities);
    const payload = JSON.parse(Buffer.from(tokens.admin!.split('.')[1]!, 'base64url').toString());
    const expired = await new SignJWT({ ...payload, exp: Math.floor(Date.now() / 1000) - 60 }).setProtectedHeader({ alg: 'RS256', kid: key.kid }).sign(key.privateKey);
    const forged = `${tokens.admin!.split('.').slice(0, 2).join('.')}.${Buffer.from('not the signature').toString('base64url')}`;
    for (const route of routes) {
      expect((await call(t.base, undefined, route.method, route.path, route.body)).status, `${route.method} ${route.path}`).toBe(401);
      for (const bad of ['garbage', forged, expired]) {
        const r = await call(t.base, bad, route.method, route.path, route.body);
        expect(r.status, `${route.method} ${route.path}`).toBe(401);
      }
    }
    const r = await call(t.base, expired, 'GET', '/api/v4/products');
    expect(r.body.message).toMatch(/expired/);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('each role gets exactly its permissions; a refusal names the permission', async () => {
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      for (const route of routes) {
        const r = await call(t.base, tokens[role], route.method, route.path, route.body);
        const label = `${role} ${route.method} ${route.path} -> ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;
        if (roleAllows(role, route.permission)) expect([401, 403], label).not.toContain(r.status);
        else {
          expect(r.status, label).toBe(403);
          expect(r.body.permission, label).toBe(route.permission);
        }
      }
    }
  });

  it("another organisation's admin sees none of it (404, never 403)", async () => {
    for (const route of routes.filter((r) => r.tenant)) {
      const r = await call(t.base, tokens.other, route.method, route.path, route.body);
      expect(r.status, `${route.method} ${route.path}`).toBe(404);
    }
    const list = await call(t.base, tokens.other, 'GET', '/api/v4/products');
    expect(list.body.products.map((p: { id: string }) => p.id)).not.toContain(`products/${productId}`);
    const grid = await call(t.base, tokens.other, 'POST', '/api/v4/grids/findings:gridList', { filters: [{ field: 'productId', value: productId }] });
    expect(grid.body.total).toBe(0);
    const binaries = await call(t.base, tokens.other, 'POST', '/api/v4/grids/binaries:gridList', { filters: [{ field: 'productId', value: productId }] });
    expect(binaries.body.total).toBe(0);
  });

  it('machine clients use client_credentials; refresh tokens renew access; OAuth errors follow RFC 6749', async () => {
    const created = await call(t.base, tokens.admin, 'POST', '/api/v4/clients', { name: 'ci', role: 'editor', clientId: 'ci-bot' });
    expect(created.status).toBe(201);
    // The list names the organisation's clients and never a secret or its hash; another organisation sees none of them.
    const listed = await call(t.base, tokens.admin, 'GET', '/api/v4/clients');
    expect(listed.body.clients).toContainEqual({ clientId: 'ci-bot', name: 'ci', role: 'editor', createTime: created.body.createTime });
    expect(JSON.stringify(listed.body)).not.toMatch(/secret/i);
    expect((await call(t.base, tokens.other, 'GET', '/api/v4/clients')).body.clients.map((c: { clientId: string }) => c.clientId)).not.toContain('ci-bot');
    const form = (fields: Record<string, string>) => fetch(`${t.base}${REALM_TOKEN_PATH}`, { method: 'POST', body: new URLSearchParams(fields) });
    const cc = await form({ grant_type: 'client_credentials', client_id: 'ci-bot', client_secret: created.body.clientSecret });
    const ccBody: any = await cc.json();
    expect(cc.status).toBe(200);
    expect(ccBody).toMatchObject({ token_type: 'Bearer', expires_in: 1800 });
    expect((await call(t.base, ccBody.access_token, 'POST', '/api/v4/products', { name: 'from ci' })).status).toBe(201);
    expect((await call(t.base, ccBody.access_token, 'GET', '/api/v4/users')).status).toBe(403);
    const refreshed = await form({ grant_type: 'refresh_token', refresh_token: ccBody.refresh_token });
    expect(refreshed.status).toBe(200);
    expect((await call(t.base, ccBody.refresh_token, 'GET', '/api/v4/products')).status).toBe(401);
    const wrong = await form({ grant_type: 'password', client_id: 'FirmscopeClient', username: ADMIN.email, password: 'wrong' });
    expect(wrong.status).toBe(400);
    expect((await wrong.json()) as unknown).toEqual({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
    const badSecret = await form({ grant_type: 'client_credentials', client_id: 'ci-bot', client_secret: 'nope' });
    expect(badSecret.status).toBe(401);
    expect(((await badSecret.json()) as any).error).toBe('invalid_client');
    expect(((await (await form({ grant_type: "implicit" })).json()) as any).error).toBe('unsupported_grant_type');
  });

  it('publishes discovery and JWKS documents that verify its tokens', async () => {
    const discovery: any = await (await fetch(`${t.base}/realms/FirmscopeRealm/.well-known/openid-configuration`)).json();
    expect(discovery.issuer).toBe(`${t.base}/realms/FirmscopeRealm`);
    const jwks: any = await (await fetch(discovery.jwks_uri)).json();
    const { createLocalJWKSet, jwtVerify } = await import('jose');
    const { payload } = await jwtVerify(tokens.viewer!, createLocalJWKSet(jwks), { issuer: discovery.issuer });
    expect(payload.email).toBe('viewer@example.com');
    const openapi: any = await (await fetch(`${t.base}/api/v4/openapi.json`)).json();
    expect(openapi.openapi).toMatch(/^3\./);
    expect(Object.keys(openapi.paths)).toContain('/api/v4/grids/findings:gridList');
  });
});

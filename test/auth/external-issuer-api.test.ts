// An external issuer's tokens through the real server: its users land in FIRMSCOPE_EXTERNAL_ORG as their own
// accounts, whatever e-mail the token claims; tokens without expiry or for another client are refused; a
// missing FIRMSCOPE_EXTERNAL_ORG stops the start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg } from '../../src/services/identity-admin.js';
import { startTestIssuer, type TestIssuer } from '../support/external-issuer.js';
import { call, startTestServer, type TestServer } from '../support/server.js';

describe('external issuer over HTTP', () => {
  let idp: TestIssuer;
  let t: TestServer;
  let victimId: string;

  beforeAll(async () => {
    idp = await startTestIssuer();
    t = await startTestServer({ env: { FIRMSCOPE_WORKERS: '0', FIRMSCOPE_EXTERNAL_ISSUER: idp.issuer, FIRMSCOPE_EXTERNAL_CLIENT: 'firmscope' } });
    victimId = (await addOrg(t.server.runtime.repos.identities, { name: 'victim-org', adminEmail: 'boss@victim.test', adminPassword: 'victim-password' })).admin.id;
  });
  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });

  it("signs in as a new user of the external organisation, never as the account that owns the token's e-mail", async () => {
    const token = await idp.sign('kc-mallory', {
      azp: 'firmscope', email: 'boss@victim.test', email_verified: true, preferred_username: 'boss@victim.test', realm_access: { roles: ['admin'] },
    });
    const me = await call(t.base, token, 'GET', '/api/v4/users/me');
    expect(me.status).toBe(200);
    expect(me.body.id).not.toBe(victimId);
    expect(me.body.organisation.name).toBe('default');
    expect(me.body.email).toMatch(/@external\.invalid$/);
    const users = await call(t.base, token, 'GET', '/api/v4/users');
    expect(users.body.users.map((u: { email: string }) => u.email)).not.toContain('boss@victim.test');
  });

  it('refuses tokens without expiry or meant for another client', async () => {
    const roles = { realm_access: { roles: ['viewer'] } };
    const endless = await call(t.base, await idp.sign('kc-x', { ...roles, azp: 'firmscope' }, { expires: false }), 'GET', '/api/v4/users/me');
    expect(endless.status).toBe(401);
    expect(endless.body.message).toMatch(/no 'exp' claim/);
    const elsewhere = await call(t.base, await idp.sign('kc-x', { ...roles, aud: 'account', azp: 'wiki' }), 'GET', '/api/v4/users/me');
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body.message).toMatch(/aud or azp must name the client 'firmscope'/);
  });

  it('does not start when FIRMSCOPE_EXTERNAL_ORG names no organisation', async () => {
    await expect(
      startTestServer({ env: { FIRMSCOPE_WORKERS: '0', FIRMSCOPE_EXTERNAL_ISSUER: idp.issuer, FIRMSCOPE_EXTERNAL_CLIENT: 'firmscope', FIRMSCOPE_EXTERNAL_ORG: 'nowhere' } }),
    ).rejects.toThrow(/FIRMSCOPE_EXTERNAL_ORG=nowhere: no such organisation/);
  });
});

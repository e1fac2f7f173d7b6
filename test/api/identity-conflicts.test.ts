// Creating users and machine clients over HTTP, on both databases: concurrent creations of one e-mail or client
// id answer one 201 and 409s (never a 500); a 409 names no other organisation; the public client id is reserved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg } from '../../src/services/identity-admin.js';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, startTestServer, type TestServer } from '../support/server.js';

for (const dialect of testDialects()) {
  describe(`identity conflicts [${dialect}]`, () => {
    let t: TestServer;
    let admin: string;
    let otherAdmin: string;

    beforeAll(async () => {
      t = await startTestServer({ env: { FIRMSCOPE_WORKERS: '0' }, postgres: dialect === 'postgres' });
      admin = await passwordToken(t.base, ADMIN.email, ADMIN.password);
      await addOrg(t.server.runtime.repos.identities, { name: 'other-tenant', adminEmail: 'boss@other-tenant.test', adminPassword: 'other-password' });
      otherAdmin = await passwordToken(t.base, 'boss@other-tenant.test', 'other-password');
    });
    afterAll(async () => {
      await t?.close();
    });

    const statuses = (responses: Array<{ status: number }>) => responses.map((r) => r.status).sort();

    it('concurrent creations of one user answer one 201 and 409s', async () => {
      const body = { email: 'race@example.com', password: 'race-password', role: 'viewer' };
      const responses = await Promise.all(Array.from({ length: 6 }, () => call(t.base, admin, 'POST', '/api/v4/users', body)));
      expect(statuses(responses)).toEqual([201, 409, 409, 409, 409, 409]);
      for (const r of responses.filter((x) => x.status === 409)) expect(r.body.details[0].reason).toBe('conflict');
    });

    it('concurrent creations of one client id answer one 201 and 409s', async () => {
      const body = { name: 'ci', role: 'editor', clientId: 'race-client' };
      const responses = await Promise.all(Array.from({ length: 6 }, () => call(t.base, admin, 'POST', '/api/v4/clients', body)));
      expect(statuses(responses)).toEqual([201, 409, 409, 409, 409, 409]);
    });

    it("a 409 does not reveal another organisation's e-mails or clients", async () => {
      const user = await call(t.base, otherAdmin, 'POST', '/api/v4/users', { email: 'RACE@example.com', password: 'some-password', role: 'viewer' });
      expect(user.status).toBe(409);
      expect(user.body.message).toBe("the e-mail 'race@example.com' cannot be used for a new account; choose another one");
      const client = await call(t.base, otherAdmin, 'POST', '/api/v4/clients', { name: 'ci', role: 'viewer', clientId: 'race-client' });
      expect(client.status).toBe(409);
      expect(client.body.message).toBe("the client id 'race-client' cannot be used; choose another one, or leave it out to get a generated one");
      for (const r of [user, client]) expect(JSON.stringify(r.body)).not.toMatch(/default|organisation|already exists/i);
    });

    it('refuses the public client id as a machine client id or name, and the reserved .invalid e-mails', async () => {
      for (const body of [
        { name: 'ci', role: 'admin', clientId: 'FirmscopeClient' },
        { name: 'ci', role: 'admin', clientId: 'firmscopeclient' },
        { name: 'FirmscopeClient', role: 'admin' },
      ]) {
        const r = await call(t.base, admin, 'POST', '/api/v4/clients', body);
        expect(r.status).toBe(400);
        expect(r.body.message).toMatch(/'FirmscopeClient' is the public client of the password grant/);
      }
      const squat = await call(t.base, admin, 'POST', '/api/v4/users', { email: 'service-account-race-client@clients.invalid', password: 'some-password', role: 'admin' });
      expect(squat.status).toBe(400);
      expect(squat.body.message).toMatch(/\.invalid is reserved/);
      expect((await call(t.base, admin, 'POST', '/api/v4/clients', { name: 'Nightly CI', role: 'viewer' })).body.clientId).toMatch(/^nightly-ci-[a-z0-9x]{8}$/);
    });
  });
}

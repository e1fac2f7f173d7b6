// Password guessing over HTTP: the token endpoint delays and then refuses an account after repeated failures,
// answers an unknown e-mail exactly like a known one, and `firmscope users unlock` ends a lock.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { register as registerUsers } from '../../src/cli/users.js';
import { addOrg } from '../../src/services/identity-admin.js';
import { runCli } from '../support/cli.js';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, REALM_TOKEN_PATH, startTestServer, type TestServer } from '../support/server.js';

for (const dialect of testDialects()) {
  describe(`sign-in protection [${dialect}]`, () => {
    let t: TestServer;

    beforeAll(async () => {
      t = await startTestServer({ env: { FIRMSCOPE_WORKERS: '0' }, postgres: dialect === 'postgres' });
      const admin = await passwordToken(t.base, ADMIN.email, ADMIN.password);
      for (const email of ['guessed@example.com', 'locked@example.com']) {
        expect((await call(t.base, admin, 'POST', '/api/v4/users', { email, password: 'right-password', role: 'viewer' })).status).toBe(201);
      }
      await addOrg(t.server.runtime.repos.identities, { name: 'other', adminEmail: 'admin@other.test', adminPassword: 'other-password' });
    });
    afterAll(async () => {
      await t?.close();
    });

    const signIn = async (username: string, password: string) => {
      const response = await fetch(`${t.base}${REALM_TOKEN_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'password', client_id: 'FirmscopeClient', username, password }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const failures = (email: string) => t.server.runtime.repos.identities.signInFailures(email);
    const refused = { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid user credentials' } };

    it('refuses even the right password after 50 wrong ones in a row, until the delay has passed', async () => {
      for (let i = 0; i < 50; i++) expect(await signIn('guessed@example.com', `guess-${i}`)).toEqual(refused);
      expect(await signIn('guessed@example.com', 'right-password')).toEqual(refused);
      // Only the free failures and the attempts after each delay had their password checked.
      const state = await failures('guessed@example.com');
      expect(state!.failures).toBeGreaterThanOrEqual(5);
      expect(state!.failures).toBeLessThan(10);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(state!.blockedUntil) - Date.now()) + 50));
      const ok = await signIn('guessed@example.com', 'right-password');
      expect(ok.status).toBe(200);
      expect(await failures('guessed@example.com')).toBeUndefined();
    });

    it('answers an unknown e-mail exactly like a known one with a wrong password, and throttles it alike', async () => {
      const known = [];
      const unknown = [];
      for (let i = 0; i < 7; i++) {
        known.push(await signIn('admin@other.test', `guess-${i}`));
        unknown.push(await signIn('nobody@example.com', `guess-${i}`));
      }
      expect(unknown).toEqual(known);
      expect(new Set(known.map((r) => JSON.stringify(r)))).toEqual(new Set([JSON.stringify(refused)]));
      expect((await failures('nobody@example.com'))?.failures).toBe((await failures('admin@other.test'))?.failures);
    });

    it('firmscope users unlock ends a lock, checking the organisation when given', async () => {
      const identities = t.server.runtime.repos.identities;
      // The state of 20 failures in a row (the waits between them are covered by sign-in-throttle.test.ts).
      for (let i = 0; i < 20; i++) await identities.addSignInFailure('locked@example.com', new Date().toISOString());
      await identities.blockSignIn('locked@example.com', 20, new Date(Date.now() + 900_000).toISOString());
      expect(await signIn('locked@example.com', 'right-password')).toEqual(refused);

      vi.stubEnv('FIRMSCOPE_DATA_DIR', t.dataDir);
      vi.stubEnv('DATABASE_URL', t.databaseUrl ?? '');
      try {
        await expect(runCli(registerUsers, ['users', 'unlock', '--email', 'locked@example.com', '--org', 'other'])).rejects.toThrow(
          "organisation 'other' has no user 'locked@example.com'",
        );
        const run = await runCli(registerUsers, ['users', 'unlock', '--email', 'Locked@Example.com', '--org', 'default']);
        expect(run.stdout).toBe('unlocked Locked@Example.com: its failed sign-ins are cleared\n');
        expect((await runCli(registerUsers, ['users', 'unlock', '--email', 'locked@example.com'])).stdout).toBe('locked@example.com had no failed sign-ins\n');
      } finally {
        vi.unstubAllEnvs();
      }
      expect((await signIn('locked@example.com', 'right-password')).status).toBe(200);
    });
  });
}

// The typed client's generated types follow the route schemas, and the client talks to a real server.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTypesSource } from '../../scripts/client-types-source.js';
import { createFirmscopeClient, expectData, FirmscopeApiError } from '../../src/client/index.js';
import { describeApi } from '../../src/server.js';
import { ADMIN, passwordToken, startTestServer, type TestServer } from '../support/server.js';

describe('typed client', () => {
  it('src/client/openapi.ts matches the OpenAPI document (run `npx tsx scripts/client-types.ts` if not)', async () => {
    const expected = await clientTypesSource(await describeApi());
    const actual = readFileSync(new URL('../../src/client/openapi.ts', import.meta.url), 'utf8');
    expect(actual === expected, 'src/client/openapi.ts is stale: run `npx tsx scripts/client-types.ts`').toBe(true);
  });

  describe('against a running server', () => {
    let t: TestServer;
    beforeAll(async () => { t = await startTestServer({ env: { FIRMSCOPE_WORKERS: '0' } }); });
    afterAll(async () => { await t?.close(); });

    it('sends the bearer token, types the answers and turns errors into FirmscopeApiError', async () => {
      const token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
      const client = createFirmscopeClient({ baseUrl: `${t.base}/`, token: () => token });
      const created = expectData(await client.POST('/api/v4/products', { body: { name: 'client test' } }));
      expect(created.name).toBe('client test');
      const list = expectData(await client.GET('/api/v4/products'));
      expect(JSON.stringify(list)).toContain('client test');

      const anonymous = createFirmscopeClient({ baseUrl: t.base });
      const refused = await anonymous.GET('/api/v4/products');
      expect(() => expectData(refused)).toThrow(FirmscopeApiError);
      try { expectData(refused); } catch (error) { expect((error as FirmscopeApiError).status).toBe(401); }
    });
  });
});

// FIRMSCOPE_SIGNING_KEY: every server signs with the configured key (kid = its RFC 7638 thumbprint), the database's
// own key stays published so tokens it signed still verify, and nothing is written to the database.
import { generateKeyPairSync } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, importSPKI, jwtVerify, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningKey } from '../../src/auth/signing-keys.js';
import { TokenService } from '../../src/auth/token-service.js';
import { IdentityRepository } from '../../src/store/identity.repository.js';
import { openTestDatabase, type TestDatabase } from '../support/databases.js';
import { ADMIN, passwordToken, startTestServer, type TestServer } from '../support/server.js';

const ISSUER = 'http://firmscope.test/realms/FirmscopeRealm';
const SETTINGS = { issuer: ISSUER, publicClientId: 'FirmscopeClient', accessTokenSeconds: 60, refreshTokenSeconds: 120 };
const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const PUBLIC_PEM = pair.publicKey.export({ type: 'spki', format: 'pem' }) as string;

describe('configured signing key', () => {
  let database: TestDatabase;
  let identities: IdentityRepository;

  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
    identities = new IdentityRepository(database.db);
  });
  afterAll(async () => {
    await database.close();
  });

  it('signs with the configured key on every server, and tokens of the stored key still verify', async () => {
    const orgId = (await identities.createOrg('default')).id;
    const user = await identities.createUser({ orgId, email: 'ops@corp.test', role: 'editor', passwordHash: null });
    const generated = await loadSigningKey(identities);
    const before = await new TokenService(generated, SETTINGS, identities).issue(user, 'FirmscopeClient', 'openid');

    const [a, b] = [await loadSigningKey(identities, PEM), await loadSigningKey(identities, PEM)];
    expect(a.kid).toBe(b.kid);
    expect(a.kid).not.toBe(generated.kid);
    expect(a.publicJwks.map((k) => k.kid)).toEqual([a.kid, generated.kid]);
    expect(await identities.listSigningKeys()).toHaveLength(1);

    const serverA = new TokenService(a, SETTINGS, identities);
    const serverB = new TokenService(b, SETTINGS, identities);
    const tokens = await serverA.issue(user, 'FirmscopeClient', 'openid');
    expect(decodeProtectedHeader(tokens.access_token).kid).toBe(a.kid);
    // Signed by the configured key itself, verified by anyone holding its public half, and by the other server.
    await jwtVerify(tokens.access_token, await importSPKI(PUBLIC_PEM, 'RS256'));
    expect(await serverB.authenticate(tokens.access_token)).toMatchObject({ userId: user.id });
    expect(await serverB.authenticate(before.access_token)).toMatchObject({ userId: user.id });
  });

  it('publishes the configured key in the service JWKS and signs sign-in tokens with it', async () => {
    const server: TestServer = await startTestServer({ env: { FIRMSCOPE_SIGNING_KEY: PEM } });
    try {
      const certs = await fetch(`${server.base}/realms/FirmscopeRealm/protocol/openid-connect/certs`).then((r) => r.json()) as { keys: JWK[] };
      const token = await passwordToken(server.base, ADMIN.email, ADMIN.password);
      const kid = decodeProtectedHeader(token).kid;
      expect(certs.keys[0]!.kid).toBe(kid);
      expect(certs.keys[0]).not.toHaveProperty('d');
      await jwtVerify(token, createLocalJWKSet(certs));
      await jwtVerify(token, await importSPKI(PUBLIC_PEM, 'RS256'));
    } finally {
      await server.close();
    }
  });
});

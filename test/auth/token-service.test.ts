// TokenService: our own tokens (an external issuer's tokens: external-issuer.test.ts).
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningKey, type SigningKey } from '../../src/auth/signing-keys.js';
import { TokenService } from '../../src/auth/token-service.js';
import { IdentityRepository } from '../../src/store/identity.repository.js';
import { openTestDatabase, type TestDatabase } from '../support/databases.js';

const ISSUER = 'http://firmscope.test/realms/FirmscopeRealm';

describe('TokenService', () => {
  let database: TestDatabase;
  let identities: IdentityRepository;
  let key: SigningKey;
  let service: TokenService;
  let orgId: string;

  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
    identities = new IdentityRepository(database.db);
    orgId = (await identities.createOrg('default')).id;
    key = await loadSigningKey(identities);
    service = new TokenService(key, { issuer: ISSUER, publicClientId: 'FirmscopeClient', accessTokenSeconds: 60, refreshTokenSeconds: 120 }, identities);
  });
  afterAll(async () => {
    await database.close();
  });

  it('issues tokens that authenticate, and refresh tokens that are not access tokens', async () => {
    const user = await identities.createUser({ orgId, email: 'me@corp.test', role: 'editor', passwordHash: null });
    const tokens = await service.issue(user, 'FirmscopeClient', 'openid');
    expect(tokens.id_token).toBeTruthy();
    expect(await service.authenticate(tokens.access_token)).toMatchObject({ userId: user.id, role: 'editor', orgId });
    await expect(service.authenticate(tokens.refresh_token)).rejects.toThrow();
    expect((await service.verifyRefresh(tokens.refresh_token)).user.id).toBe(user.id);
  });

  it('refuses a token of its own key that has no expiry', async () => {
    const user = await identities.createUser({ orgId, email: 'forever@corp.test', role: 'viewer', passwordHash: null });
    const endless = await new SignJWT({ typ: 'Bearer', org: orgId })
      .setProtectedHeader({ alg: 'RS256', kid: key.kid }).setIssuer(ISSUER).setSubject(user.id).setAudience('account').setIssuedAt()
      .sign(key.privateKey);
    await expect(service.authenticate(endless)).rejects.toThrow(/no 'exp' claim/);
  });
});

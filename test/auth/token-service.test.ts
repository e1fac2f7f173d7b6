// TokenService: our own tokens, and an external issuer's tokens verified through its JWKS over HTTP with
// realm roles mapped to ours.
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSigningKey } from '../../src/auth/signing-keys.js';
import { TokenService } from '../../src/auth/token-service.js';
import { IdentityRepository } from '../../src/store/identity.repository.js';
import { openTestDatabase, type TestDatabase } from '../support/databases.js';

describe('TokenService', () => {
  let database: TestDatabase;
  let identities: IdentityRepository;
  let jwksServer: Server;
  let issuer: string;
  let externalKey: CryptoKey;
  let service: TokenService;
  let orgId: string;

  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
    identities = new IdentityRepository(database.db);
    orgId = (await identities.createOrg('default')).id;
    const pair = await generateKeyPair('RS256', { extractable: true });
    externalKey = pair.privateKey as CryptoKey;
    const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'ext-1', alg: 'RS256', use: 'sig' }] };
    jwksServer = createServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(request.url?.endsWith('/protocol/openid-connect/certs') ? JSON.stringify(jwks) : '{}');
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    const address = jwksServer.address() as { port: number };
    issuer = `http://127.0.0.1:${address.port}/realms/corp`;
    service = new TokenService(await loadSigningKey(identities), {
      issuer: 'http://firmscope.test/realms/FirmscopeRealm', publicClientId: 'FirmscopeClient', accessTokenSeconds: 60, refreshTokenSeconds: 120,
      external: { issuer, orgId, clientId: 'firmscope' },
    }, identities);
  });
  afterAll(async () => {
    jwksServer.close();
    await database.close();
  });

  const external = (claims: Record<string, unknown>, key: CryptoKey = externalKey) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'ext-1' }).setIssuer(issuer).setSubject('kc-user-1').setIssuedAt().setExpirationTime('5m').sign(key);

  it('issues tokens that authenticate, and refresh tokens that are not access tokens', async () => {
    const user = await identities.createUser({ orgId, email: 'me@corp.test', role: 'editor', passwordHash: null });
    const tokens = await service.issue(user, 'FirmscopeClient', 'openid');
    expect(tokens.id_token).toBeTruthy();
    expect(await service.authenticate(tokens.access_token)).toMatchObject({ userId: user.id, role: 'editor', orgId });
    await expect(service.authenticate(tokens.refresh_token)).rejects.toThrow();
    expect((await service.verifyRefresh(tokens.refresh_token)).user.id).toBe(user.id);
  });

  it('accepts an external issuer token by its JWKS and maps realm and client roles', async () => {
    const viewer = await service.authenticate(await external({ email: 'Ann@Corp.test', realm_access: { roles: ['offline_access', 'viewer'] } }));
    expect(viewer).toMatchObject({ email: 'ann@corp.test', role: 'viewer', orgId });
    expect((await identities.findUserByEmail('ann@corp.test'))?.passwordHash).toBeNull();
    const admin = await service.authenticate(await external({ email: 'bob@corp.test', resource_access: { firmscope: { roles: ['firmscope-admin'] } } }));
    expect(admin.role).toBe('admin');
  });

  it('refuses an external token without our roles or signed by another key', async () => {
    await expect(service.authenticate(await external({ email: 'x@corp.test', realm_access: { roles: ['offline_access'] } }))).rejects.toThrow(/none of the roles/);
    const other = (await generateKeyPair('RS256')).privateKey as CryptoKey;
    await expect(service.authenticate(await external({ email: 'x@corp.test', realm_access: { roles: ['admin'] } }, other))).rejects.toThrow(/signature/);
  });
});

// External issuer tokens (external-issuer.ts), on both databases: bound by (issuer, sub) to a user of the
// configured organisation, never matched by e-mail; expiry and audience (aud or azp) required.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateKeyPair, type CryptoKey } from 'jose';
import { ExternalIssuer } from '../../src/auth/external-issuer.js';
import { IdentityRepository } from '../../src/store/identity.repository.js';
import { describeEachDatabase } from '../support/databases.js';
import { startTestIssuer, type TestIssuer } from '../support/external-issuer.js';

const CLIENT = 'firmscope';

describeEachDatabase('external issuer', (get) => {
  let idp: TestIssuer;
  let identities: IdentityRepository;
  let external: ExternalIssuer;
  let corpId: string;
  let otherId: string;

  beforeAll(async () => {
    idp = await startTestIssuer();
    identities = new IdentityRepository(get().db);
    corpId = (await identities.createOrg('corp')).id;
    otherId = (await identities.createOrg('other')).id;
    external = new ExternalIssuer({ issuer: idp.issuer, clientId: CLIENT, orgId: corpId }, identities);
  });
  afterAll(async () => {
    await idp.close();
  });

  const viewer = { azp: CLIENT, realm_access: { roles: ['offline_access', 'viewer'] } };

  it('maps realm and client roles, and binds the subject to one user of the configured organisation', async () => {
    const first = await external.authenticate(await idp.sign('kc-ann', { ...viewer, email: 'Ann@Corp.test', email_verified: true }));
    expect(first).toMatchObject({ email: 'ann@corp.test', role: 'viewer', orgId: corpId, kind: 'user' });
    expect((await identities.findUser(first.userId))?.passwordHash).toBeNull();
    const again = await external.authenticate(await idp.sign('kc-ann', { aud: ['account', CLIENT], resource_access: { [CLIENT]: { roles: ['firmscope-admin'] } } }));
    expect(again).toMatchObject({ userId: first.userId, role: 'admin', orgId: corpId });
  });

  it("never signs in as an existing account with the token's e-mail or username, verified or not", async () => {
    const victim = await identities.createUser({ orgId: otherId, email: 'victim@other.test', role: 'admin', passwordHash: 'h' });
    for (const [sub, claims] of [
      ['kc-mallory-1', { email: 'victim@other.test' }],
      ['kc-mallory-2', { email: 'victim@other.test', email_verified: true }],
      ['kc-mallory-3', { preferred_username: 'victim@other.test' }],
    ] as const) {
      const principal = await external.authenticate(await idp.sign(sub, { ...viewer, ...claims }));
      expect(principal.userId).not.toBe(victim.id);
      expect(principal.orgId).toBe(corpId);
      expect(principal.email).toMatch(/^external-[0-9a-f]{24}@external\.invalid$/);
    }
    expect(await identities.findUser(victim.id)).toMatchObject({ orgId: otherId, email: 'victim@other.test', role: 'admin' });
  });

  it('shows an unverified e-mail nowhere, and a verified one already taken by another subject neither', async () => {
    const unverified = await external.authenticate(await idp.sign('kc-bob', { ...viewer, email: 'bob@corp.test', email_verified: false }));
    expect(unverified.email).toMatch(/@external\.invalid$/);
    const owner = await external.authenticate(await idp.sign('kc-carol', { ...viewer, email: 'carol@corp.test', email_verified: true }));
    expect(owner.email).toBe('carol@corp.test');
    const other = await external.authenticate(await idp.sign('kc-carol-2', { ...viewer, email: 'carol@corp.test', email_verified: true }));
    expect(other.userId).not.toBe(owner.userId);
    expect(other.email).toMatch(/@external\.invalid$/);
  });

  it('binds concurrent first sign-ins of one subject to one user', async () => {
    const token = await idp.sign('kc-dave', { ...viewer, email: 'dave@corp.test', email_verified: true });
    const principals = await Promise.all(Array.from({ length: 6 }, () => external.authenticate(token)));
    expect(new Set(principals.map((p) => p.userId)).size).toBe(1);
  });

  it('refuses a token without expiry, not meant for this client, not an access token, without our roles, or forged', async () => {
    await expect(external.authenticate(await idp.sign('kc-erin', viewer, { expires: false }))).rejects.toThrow(/no 'exp' claim/);
    const { azp: _azp, ...noAudience } = viewer;
    await expect(external.authenticate(await idp.sign('kc-erin', noAudience))).rejects.toThrow(/aud or azp must name the client 'firmscope'/);
    await expect(external.authenticate(await idp.sign('kc-erin', { ...noAudience, aud: 'account', azp: 'another-app' }))).rejects.toThrow(/aud or azp/);
    await expect(external.authenticate(await idp.sign('kc-erin', { ...viewer, typ: 'ID' }))).rejects.toThrow(/not an access token/);
    await expect(external.authenticate(await idp.sign('kc-erin', { azp: CLIENT, realm_access: { roles: ['offline_access'] } }))).rejects.toThrow(/none of the roles/);
    const impostor = (await generateKeyPair('RS256')).privateKey as CryptoKey;
    await expect(external.authenticate(await idp.sign('kc-erin', viewer, { key: impostor }))).rejects.toThrow(/signature/);
    expect(await identities.findExternalUser(idp.issuer, 'kc-erin')).toBeUndefined();
  });
});

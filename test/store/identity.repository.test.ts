// The identity store on both databases: concurrent inserts of one key end in one row and ConflictErrors (the
// unique constraint decides, not a check-then-insert), and the unique-violation helper knows both dialects.
import { beforeAll, expect, it } from 'vitest';
import { ConflictError } from '../../src/errors.js';
import { IdentityRepository } from '../../src/store/identity.repository.js';
import { isUniqueViolation } from '../../src/store/unique-violation.js';
import { describeEachDatabase } from '../support/databases.js';

describeEachDatabase('identity repository', (get) => {
  let identities: IdentityRepository;
  let orgId: string;

  beforeAll(async () => {
    identities = new IdentityRepository(get().db);
    orgId = (await identities.createOrg('acme')).id;
  });

  const settle = async <T>(work: Array<Promise<T>>) => {
    const results = await Promise.allSettled(work);
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
    return { created: results.length - failures.length, failures };
  };

  it('concurrent creations of one user, client or organisation: one row, the others ConflictError', async () => {
    const users = await settle(Array.from({ length: 8 }, (_, i) => identities.createUser({ orgId, email: i % 2 ? 'Twin@Acme.test' : 'twin@acme.test', role: 'viewer', passwordHash: null })));
    const clients = await settle(Array.from({ length: 8 }, () => identities.createClient({ orgId, name: 'ci', clientId: 'twin-ci', secretHash: 's', role: 'viewer' })));
    const orgs = await settle(Array.from({ length: 8 }, () => identities.createOrg('twins')));
    for (const outcome of [users, clients, orgs]) {
      expect(outcome.created).toBe(1);
      for (const failure of outcome.failures) expect(failure).toBeInstanceOf(ConflictError);
    }
    expect((await identities.listUsers(orgId)).filter((u) => u.email === 'twin@acme.test')).toHaveLength(1);
  });

  it("lists an organisation's machine clients, oldest first, and no other organisation's", async () => {
    const own = (await identities.createOrg('listing')).id;
    const other = (await identities.createOrg('listing-other')).id;
    await identities.createClient({ orgId: own, name: 'first', clientId: 'list-first', secretHash: 'h1', role: 'viewer' });
    await identities.createClient({ orgId: other, name: 'elsewhere', clientId: 'list-elsewhere', secretHash: 'h2', role: 'admin' });
    await identities.createClient({ orgId: own, name: 'second', clientId: 'list-second', secretHash: 'h3', role: 'editor' });
    const listed = await identities.listClients(own);
    expect(listed.map((c) => [c.clientId, c.name, c.role, c.orgId])).toEqual([['list-first', 'first', 'viewer', own], ['list-second', 'second', 'editor', own]]);
    expect(await identities.listClients((await identities.createOrg('listing-empty')).id)).toEqual([]);
  });

  it("recognises this database's unique violations and nothing else", async () => {
    const db = get().db;
    const row = { kid: 'dup', private_jwk: '{}', public_jwk: '{}', create_time: '2026-01-01T00:00:00.000Z' };
    await db.insertInto('signing_keys').values(row).execute();
    const duplicate = await db.insertInto('signing_keys').values(row).execute().catch((error: unknown) => error);
    expect(isUniqueViolation(duplicate)).toBe(true);
    const missingColumn = await db.insertInto('signing_keys').values({ ...row, kid: 'other', private_jwk: null as never }).execute().catch((error: unknown) => error);
    expect(missingColumn).toBeInstanceOf(Error);
    expect(isUniqueViolation(missingColumn)).toBe(false);
    expect(isUniqueViolation(new Error('x'))).toBe(false);
    expect(isUniqueViolation(undefined)).toBe(false);
  });
});

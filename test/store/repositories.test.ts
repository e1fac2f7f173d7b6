// Products, images, temp files, scans, identities and transactions on both dialects.
import { beforeAll, expect, it } from 'vitest';
import { createRepositories, type Repositories } from '../../src/store/repositories.js';
import { describeEachDatabase } from '../support/databases.js';

describeEachDatabase('repositories', (get) => {
  let repos: Repositories;
  let orgA: string;
  let orgB: string;
  let userId: string;
  const blob = { key: 'uploads/x', size: 3, sha256: 'a', sha1: 'b', md5: 'c' };

  beforeAll(async () => {
    repos = createRepositories(get().db, get().dialect);
    orgA = (await repos.identities.createOrg('a')).id;
    orgB = (await repos.identities.createOrg('b')).id;
    userId = (await repos.identities.createUser({ orgId: orgA, email: 'Someone@A.test', role: 'editor', passwordHash: 'h' })).id;
  });

  it('identities: e-mails are unique and case-insensitive; organisations unique by name', async () => {
    expect((await repos.identities.findUserByEmail('someone@a.test'))?.id).toBe(userId);
    await expect(repos.identities.createUser({ orgId: orgB, email: 'SOMEONE@a.test', role: 'viewer', passwordHash: null })).rejects.toThrow(/cannot be used/);
    await expect(repos.identities.createOrg('a')).rejects.toThrow(/already exists/);
    const client = await repos.identities.createClient({ orgId: orgA, name: 'ci', clientId: 'ci-1', secretHash: 's', role: 'viewer' });
    expect((await repos.identities.findUser(client.userId))?.kind).toBe('client');
    expect((await repos.identities.listUsers(orgA)).map((u) => u.email)).toEqual(['someone@a.test']);
  });

  it('products are scoped by organisation, with author, update and archive', async () => {
    const product = await repos.products.create({ orgId: orgA, name: 'router', authorId: userId });
    expect(product.author?.email).toBe('someone@a.test');
    expect(await repos.products.get(orgB, product.id)).toBeUndefined();
    const updated = await repos.products.update(orgA, product.id, { description: 'd', isArchived: true });
    expect(updated).toMatchObject({ description: 'd', isArchived: true });
    expect((await repos.products.list(orgA)).map((p) => p.id)).not.toContain(product.id);
    expect((await repos.products.list(orgA, { includeArchived: true })).map((p) => p.id)).toContain(product.id);
  });

  it('a temp file is used at most once, and only after its upload', async () => {
    const product = await repos.products.create({ orgId: orgA, name: 'p', authorId: userId });
    const temp = await repos.images.createTempFile({ productId: product.id, orgId: orgA, authorId: userId, expireTime: new Date().toISOString() });
    expect(await repos.images.claimUpload(temp.id)).toBeUndefined();
    expect(await repos.images.commitUpload(temp.id, null, blob)).toBe(true);
    const claims = await Promise.all([repos.images.claimUpload(temp.id), repos.images.claimUpload(temp.id), repos.images.claimUpload(temp.id)]);
    expect(claims.filter(Boolean)).toEqual([blob]);
    expect(await repos.images.commitUpload(temp.id, blob.key, { ...blob, key: 'uploads/later' })).toBe(false);
    expect((await repos.images.getTempFile(product.id, temp.id))?.blob?.key).toBe(blob.key);
    expect((await repos.images.getTempFile(product.id, temp.id))?.status).toBe('used');
  });

  it('of uploads that found the same state, exactly one commits; a later upload replaces it', async () => {
    const product = await repos.products.create({ orgId: orgA, name: 'p-cas', authorId: userId });
    const temp = await repos.images.createTempFile({ productId: product.id, orgId: orgA, authorId: userId, expireTime: new Date().toISOString() });
    const racers = ['uploads/r1', 'uploads/r2', 'uploads/r3'].map((key) => repos.images.commitUpload(temp.id, null, { ...blob, key }));
    expect((await Promise.all(racers)).filter(Boolean)).toHaveLength(1);
    const first = (await repos.images.getTempFile(product.id, temp.id))!.blob!.key;
    expect(await repos.images.commitUpload(temp.id, 'uploads/not-current', { ...blob, key: 'uploads/r4' })).toBe(false);
    expect(await repos.images.commitUpload(temp.id, first, { ...blob, key: 'uploads/r5', sha256: 'e' })).toBe(true);
    expect(await repos.images.claimUpload(temp.id)).toEqual({ ...blob, key: 'uploads/r5', sha256: 'e' });
  });

  it('scan state moves are conditional and recorded', async () => {
    const product = await repos.products.create({ orgId: orgA, name: 'p2', authorId: userId });
    const image = await repos.images.create({ productId: product.id, orgId: orgA, name: 'i', fileName: 'i.bin', blob, authorId: userId });
    expect(image.size).toBe(3);
    const scan = await repos.scans.create({ imageId: image.id, productId: product.id, orgId: orgA, authorId: userId });
    expect(await repos.scans.transition(scan.id, ['running'], 'done')).toBe(false);
    expect(await repos.scans.transition(scan.id, ['new'], 'running')).toBe(true);
    await repos.scans.setProgress(scan.id, 'unpack', 42.4);
    expect((await repos.scans.getById(scan.id))?.progress).toEqual({ phase: 'unpack', percent: 42 });
    const racers = await Promise.all([
      repos.scans.transition(scan.id, ['running'], 'done'),
      repos.scans.transition(scan.id, ['running'], 'cancelled'),
    ]);
    expect(racers.filter(Boolean)).toHaveLength(1);
    const states = await repos.scans.states(scan.id);
    expect(states.map((s) => s.type).slice(0, 2)).toEqual(['new', 'running']);
    expect(states).toHaveLength(3);
    expect((await repos.scans.latest(image.id))?.id).toBe(scan.id);
  });

  it('transaction commits what fn wrote when it resolves, rolls all of it back when it throws, and nests by joining', async () => {
    const names = async () => (await repos.products.list(orgB)).map((p) => p.name).sort();
    await repos.transaction(async (tx) => {
      await tx.products.create({ orgId: orgB, name: 'kept', authorId: userId });
      await tx.transaction((inner) => inner.products.create({ orgId: orgB, name: 'kept-inner', authorId: userId }));
    });
    await expect(repos.transaction(async (tx) => {
      await tx.products.create({ orgId: orgB, name: 'dropped', authorId: userId });
      await tx.transaction((inner) => inner.products.create({ orgId: orgB, name: 'dropped-inner', authorId: userId }));
      throw new Error('abort');
    })).rejects.toThrow('abort');
    expect(await names()).toEqual(['kept', 'kept-inner']);
  });
});

// The image list reads each image's overview (scans, files, counts, hardening) in a fixed number of queries
// whatever the number of images, and each image still gets its own values; on both dialects.
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import type { BinaryInfo, EngineFinding } from '../../src/engine/types.js';
import { listImages } from '../../src/services/images.js';
import { createRepositories, type Repositories } from '../../src/store/repositories.js';
import { describeEachDatabase } from '../support/databases.js';

/** Counts the statements run through the Kysely instance it is attached to. */
class QueryCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.count++;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

const binary = (path: string): BinaryInfo => ({
  path, format: 'elf', type: 'executable', arch: 'arm', bits: 32, endian: 'le',
  hardening: { nx: true, pie: false, relro: 'full', canary: true, fortify: false, stripped: false, rpath: null, runpath: null },
  unsafeFunctions: [], callSitesDecoded: true, networkFacing: false, unsafeUses: 2, symbols: { imported: 1, exported: 0, defined: 0 },
}) as BinaryInfo;

const finding = (fingerprint: string, type: string): EngineFinding => ({
  fingerprint, findingType: type, pname: 'p', name: fingerprint, severity: 'high', occurrences: [{ path: 'etc/x' }],
}) as unknown as EngineFinding;

describeEachDatabase('image list overview', (get) => {
  let repos: Repositories;
  let principal: { userId: string; orgId: string; email: string; role: 'viewer'; kind: 'user' };
  let orgId: string;
  let userId: string;

  async function productWithImages(n: number): Promise<string> {
    const productId = (await repos.products.create({ orgId, name: `p${n}`, authorId: userId })).id;
    for (let i = 0; i < n; i++) {
      const image = await repos.images.create({ productId, orgId, name: `i${i}`, fileName: 'i.bin', authorId: userId, blob: { key: `k${n}-${i}`, size: 1, sha256: 'a', sha1: 'b', md5: 'c' } });
      await repos.images.addFile({ imageId: image.id, productId, filename: 'x.pdb', blob: { key: `f${n}-${i}`, size: 1, sha256: 'a', sha1: 'b', md5: 'c' }, metadata: {}, authorId: userId });
      const scan = await repos.scans.create({ imageId: image.id, productId, orgId, authorId: userId });
      await repos.scans.transition(scan.id, ['new'], 'running');
      // Image i has i findings of one type and i+1 binaries, so a mixed-up lookup shows.
      const findings = Array.from({ length: i }, (_, k) => finding(`fp-${n}-${i}-${k}`, 'password-hash'));
      const binaries = Array.from({ length: i + 1 }, (_, k) => binary(`bin/b${k}`));
      await repos.results.store({ scanId: scan.id, imageId: image.id, productId }, { components: [], findings, cryptoAssets: [], binaries });
      await repos.scans.transition(scan.id, ['running'], 'done');
    }
    return productId;
  }

  beforeAll(async () => {
    repos = createRepositories(get().db, get().dialect);
    const org = await repos.identities.createOrg('acme');
    const user = await repos.identities.createUser({ orgId: org.id, email: 'v@acme.test', role: 'viewer', passwordHash: null });
    orgId = org.id;
    userId = user.id;
    principal = { userId: user.id, orgId: org.id, email: user.email, role: 'viewer', kind: 'user' };
  });

  it('makes the same number of queries for 1 image as for 20', async () => {
    const one = await productWithImages(1);
    const twenty = await productWithImages(20);
    const queriesOf = async (productId: string, withCounts: boolean) => {
      const counter = new QueryCounter();
      const counted = createRepositories(get().db.withPlugin(counter), get().dialect);
      const images = await listImages(counted, principal, productId, withCounts);
      return { queries: counter.count, images };
    };
    const small = await queriesOf(one, true);
    const large = await queriesOf(twenty, true);
    expect(small.images).toHaveLength(1);
    expect(large.images).toHaveLength(20);
    expect(large.queries).toBe(small.queries);
    expect((await queriesOf(twenty, false)).queries).toBe((await queriesOf(one, false)).queries);
  });

  it('gives each image its own scans, files, counts and hardening, as the single-image reads do', async () => {
    const productId = await productWithImages(5);
    const views = await listImages(repos, principal, productId, true);
    expect(views).toHaveLength(5);
    for (const { image, overview } of views) {
      const latest = (await repos.scans.latest(image.id, ['done']))!;
      expect(overview.scans).toEqual(await repos.scans.listByImage(image.id));
      expect(overview.files).toEqual(await repos.images.listFiles(image.id));
      expect(overview.counts).toEqual(await repos.results.counts(image.id, latest.id));
      expect(overview.hardening).toEqual(await repos.binaries.hardening(latest.id));
      const i = Number(image.name.slice(1));
      expect(overview.counts!.findingTypeCounts).toEqual(i === 0 ? [] : [{ type: 'password-hash', count: i }]);
      expect(overview.hardening!.binaries).toBe(i + 1);
    }
    const bare = await listImages(repos, principal, productId, false);
    expect(bare.every((v) => v.overview.counts === undefined && v.overview.hardening === undefined)).toBe(true);
  });
});

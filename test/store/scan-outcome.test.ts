// A scan's summary and its problems as rows (migration 0002): stored once per scan (a retried scan replaces
// them), paged in the engine's order and filtered by level, on both databases.
import { beforeAll, expect, it } from 'vitest';
import type { ScanResult, ScanSummary } from '../../src/engine/types.js';
import { createRepositories, type Repositories } from '../../src/store/repositories.js';
import { describeEachDatabase } from '../support/databases.js';

const summary: ScanSummary = {
  filesExtracted: 3, bytesExtracted: 4_000_000_000, formats: { gzip: 1 }, coverage: 0.5, problems: { info: 2, warning: 1, error: 2 },
  phases: { hash: 3, unpack: 10 }, durationMs: 13, complete: false, incompleteReasons: ['fw at 0: gzip: truncated stream'],
};

const problems = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    source: `s${i}`, kind: 'error' as const, level: (['info', 'warning', 'error'] as const)[i % 3]!, message: `m${i}`,
    ...(i % 2 === 0 ? { path: `p${i}`, offset: 5_000_000_000 + i } : {}),
  })) satisfies ScanResult['problems'];

describeEachDatabase('scan outcome', (get) => {
  let repos: Repositories;
  let scanId: string;

  beforeAll(async () => {
    repos = createRepositories(get().db, get().dialect);
    const org = await repos.identities.createOrg('outcome');
    const user = await repos.identities.createUser({ orgId: org.id, email: 'o@o.test', role: 'editor', passwordHash: null });
    const product = await repos.products.create({ orgId: org.id, name: 'p', authorId: user.id });
    const blob = { key: 'images/x', size: 3, sha256: 'a', sha1: 'b', md5: 'c' };
    const image = await repos.images.create({ productId: product.id, orgId: org.id, name: 'i', fileName: 'i.bin', blob, authorId: user.id });
    scanId = (await repos.scans.create({ imageId: image.id, productId: product.id, orgId: org.id, authorId: user.id })).id;
  });

  it('a new scan has no summary and no problems', async () => {
    expect((await repos.scans.getById(scanId))!.summary).toBeUndefined();
    expect(await repos.scans.listProblems(scanId, { offset: 0, limit: 10 })).toEqual({ total: 0, rows: [] });
  });

  it('keeps the summary and pages the problems in order, filtered by level', async () => {
    await repos.scans.setOutcome(scanId, summary, problems(1200));
    expect((await repos.scans.getById(scanId))!.summary).toEqual(summary);
    const first = await repos.scans.listProblems(scanId, { offset: 0, limit: 3 });
    expect(first.total).toBe(1200);
    expect(first.rows).toEqual([
      { source: 's0', kind: 'error', level: 'info', message: 'm0', path: 'p0', offset: 5_000_000_000 },
      { source: 's1', kind: 'error', level: 'warning', message: 'm1' },
      { source: 's2', kind: 'error', level: 'error', message: 'm2', path: 'p2', offset: 5_000_000_002 },
    ]);
    const errors = await repos.scans.listProblems(scanId, { levels: ['error'], offset: 10, limit: 2 });
    expect(errors.total).toBe(400);
    expect(errors.rows.map((p) => p.message)).toEqual(['m32', 'm35']);
    const two = await repos.scans.listProblems(scanId, { levels: ['info', 'warning'], offset: 798, limit: 5 });
    expect(two.total).toBe(800);
    expect(two.rows.map((p) => p.message)).toEqual(['m1197', 'm1198']);
  });

  it('storing again replaces the problems (a retried scan stores once)', async () => {
    await repos.scans.setOutcome(scanId, { ...summary, complete: true, incompleteReasons: [] }, problems(2));
    expect((await repos.scans.listProblems(scanId, { offset: 0, limit: 10 })).total).toBe(2);
    expect((await repos.scans.getById(scanId))!.summary?.complete).toBe(true);
  });
});

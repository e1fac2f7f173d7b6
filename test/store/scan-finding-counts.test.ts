// scan_finding_counts (migration 0015) stays equal to counting the findings themselves through every way findings
// change: a stored result, a result stored again, re-matching's insert, replace and resolve, and raw SQL; and the findings grid's totals read from it agree with the rows it pages through.
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import type { EngineFinding } from '../../src/engine/types.js';
import { findingGrid } from '../../src/services/finding-grid.js';
import type { ScanRef } from '../../src/store/finding-row.js';
import { createRepositories, type Repositories } from '../../src/store/repositories.js';
import { describeEachDatabase } from '../support/databases.js';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'informational'] as const;

function finding(n: number, over: Partial<EngineFinding> = {}): EngineFinding {
  return {
    fingerprint: `fp-${n}`, findingType: n % 3 === 0 ? 'knownVulnerability' : 'dependencyVulnerability', pname: `CVE-2024-${n}`, name: `Vulnerability ${n}`,
    severity: SEVERITIES[n % SEVERITIES.length]!, isKev: n % 4 === 0, identifiers: [{ cve: `CVE-2024-${n}` }], occurrences: [{ path: `/bin/${n}` }],
    ...over,
  };
}

describeEachDatabase('per-scan finding counts', (get) => {
  let repos: Repositories;
  let principal: { userId: string; orgId: string; email: string; role: 'admin'; kind: 'user' };
  let productId: string;

  /** The counts table and a count of the findings, both as sorted `scan type severity kev na n` lines (no zeros). */
  async function bothCounts(): Promise<{ kept: string[]; counted: string[] }> {
    const db = get().db;
    const kept = await db.selectFrom('scan_finding_counts').select(['scan_id', 'finding_type', 'severity', 'is_kev', 'not_applicable', 'n']).where('n', '<>', 0).execute();
    const counted = await db.selectFrom('findings')
      .select(['scan_id', 'finding_type', 'severity', 'is_kev', sql<number>`case when applicability = 'not-applicable' then 1 else 0 end`.as('not_applicable'), sql<number>`count(*)`.as('n')])
      .groupBy(['scan_id', 'finding_type', 'severity', 'is_kev', sql`case when applicability = 'not-applicable' then 1 else 0 end`]).execute();
    const line = (r: { scan_id: string; finding_type: string; severity: string; is_kev: number; not_applicable: number; n: number | string | bigint }) =>
      `${r.scan_id} ${r.finding_type} ${r.severity} ${r.is_kev} ${r.not_applicable} ${Number(r.n)}`;
    return { kept: kept.map(line).sort(), counted: counted.map(line).sort() };
  }

  async function expectCountsRight(): Promise<void> {
    const { kept, counted } = await bothCounts();
    expect(counted.length).toBeGreaterThan(0);
    expect(kept).toEqual(counted);
  }

  async function newScan(findings: EngineFinding[]): Promise<ScanRef> {
    const image = await repos.images.create({
      productId, orgId: principal.orgId, name: 'img', fileName: 'img.bin', authorId: principal.userId, blob: { key: 'k', size: 1, sha256: 'a', sha1: 'b', md5: 'c' },
    });
    const scan = await repos.scans.create({ imageId: image.id, productId, orgId: principal.orgId, authorId: principal.userId });
    await repos.scans.transition(scan.id, ['new'], 'running');
    const ref = { scanId: scan.id, imageId: image.id, productId };
    await repos.results.store(ref, { components: [], cryptoAssets: [], findings, binaries: [] });
    await repos.scans.transition(scan.id, ['running'], 'done');
    return ref;
  }

  beforeAll(async () => {
    repos = createRepositories(get().db, get().dialect);
    const org = await repos.identities.createOrg('acme');
    const user = await repos.identities.createUser({ orgId: org.id, email: 'a@acme.test', role: 'admin', passwordHash: null });
    principal = { userId: user.id, orgId: org.id, email: user.email, role: 'admin', kind: 'user' };
    productId = (await repos.products.create({ orgId: org.id, name: 'p', authorId: user.id })).id;
  });

  it('follows stored results, re-matching and raw SQL, and the grid totals agree with the rows', async () => {
    const first = await newScan(Array.from({ length: 40 }, (_, i) => finding(i)));
    const second = await newScan(Array.from({ length: 25 }, (_, i) => finding(i + 100, { applicability: i % 5 === 0 ? { verdict: 'not-applicable', reason: 'off', evidence: [] } : undefined })));
    await expectCountsRight();

    // a result stored again replaces the scan's rows
    await repos.results.store(first, { components: [], cryptoAssets: [], findings: Array.from({ length: 30 }, (_, i) => finding(i + 5)), binaries: [] });
    await expectCountsRight();

    // re-matching: a new finding, a finding whose severity and KEV changed, two resolved
    const rows = await repos.findings.dependencyFindingsOf(first.scanId);
    const [a, b, c] = [...rows.values()];
    await repos.transaction(async (tx) => {
      await tx.findings.lockScan(first.scanId);
      expect(await tx.findings.insertIfAbsent(first, finding(999, { severity: 'critical', isKev: true }), new Date().toISOString())).toBeTypeOf('string');
      expect(await tx.findings.replace(a!.id, { ...a!.finding, severity: 'low', isKev: !a!.finding.isKev })).toBe(true);
      await tx.findings.resolve(first, [b!, c!].map((r) => ({ ...r, reason: 'no-longer-matches', details: {} })), new Date().toISOString());
    });
    await expectCountsRight();

    // raw SQL, as benches and tests write findings
    await sql`update findings set severity = 'high' where scan_id = ${second.scanId} and severity = 'low'`.execute(get().db);
    await sql`delete from findings where scan_id = ${second.scanId} and is_kev = 1`.execute(get().db);
    await expectCountsRight();

    // statuses set on some fingerprints, one of them a finding the kernel triage rejected by default
    const now = new Date().toISOString();
    for (const [fp, status] of [['fp-5', 'inProgress'], ['fp-6', 'remediated'], ['fp-100', 'new'], ['fp-105', 'inProgress'], ['fp-7', 'rejected']] as const) {
      await get().db.insertInto('finding_statuses').values({ product_id: productId, fingerprint: fp, status, update_time: now }).execute();
    }

    // the totals the grid reports from the counts are the rows it pages through
    const filters: Array<Array<{ field: string; value: unknown; comparator?: string }>> = [
      [{ field: 'productId', value: productId }],
      [{ field: 'imageId', value: second.imageId }],
      [{ field: 'productId', value: productId }, { field: 'severity', value: ['critical', 'high'], comparator: 'in' }],
      [{ field: 'productId', value: productId }, { field: 'isKev', value: 'true' }],
      [{ field: 'productId', value: productId }, { field: 'findingType', value: 'knownVulnerability' }],
      [{ field: 'productId', value: productId }, { field: 'issueStatus', value: 'new' }],
      [{ field: 'productId', value: productId }, { field: 'issueStatus', value: ['rejected', 'inProgress'], comparator: 'in' }],
      [{ field: 'imageId', value: second.imageId }, { field: 'issueStatus', value: 'rejected' }],
      [{ field: 'productId', value: productId }, { field: 'severity', value: 'critical' }, { field: 'issueStatus', value: 'inProgress' }],
    ];
    for (const f of filters) {
      const all = await findingGrid(repos, principal, { filters: f, page: { num: 1, size: 100 } } as never);
      expect(all.total).toBe(all.rows.length);
      expect(all.total).toBeGreaterThan(0);
    }
  });
});

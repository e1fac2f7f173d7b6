// The findings grid and workflow on both dialects, over stored scan results built here.
import { beforeAll, expect, it } from 'vitest';
import type { EngineFinding } from '../../src/engine/types.js';
import { findingGrid, findingGridCsv, gridCsv } from '../../src/services/finding-grid.js';
import { createRepositories, type Repositories } from '../../src/store/repositories.js';
import { describeEachDatabase } from '../support/databases.js';

function finding(fp: string, over: Partial<EngineFinding> = {}): EngineFinding {
  return {
    fingerprint: fp, findingType: 'dependencyVulnerability', pname: `CVE-2024-${fp}`, name: `Vulnerability ${fp}`, severity: 'medium',
    identifiers: [{ cve: `CVE-2024-${fp}` }], occurrences: [{ path: `/bin/${fp}` }], component: { ref: 'busybox@1.0', name: 'busybox', version: '1.0' },
    ...over,
  };
}

describeEachDatabase('findings grid', (get) => {
  let repos: Repositories;
  let principal: { userId: string; orgId: string; email: string; role: 'admin'; kind: 'user' };
  let other: typeof principal;
  let productId: string;
  let left: string;
  let right: string;

  async function imageWithScan(findings: EngineFinding[]): Promise<string> {
    const image = await repos.images.create({
      productId, orgId: principal.orgId, name: 'img', fileName: 'img.bin', authorId: principal.userId,
      blob: { key: 'k', size: 1, sha256: 'a', sha1: 'b', md5: 'c' },
    });
    const scan = await repos.scans.create({ imageId: image.id, productId, orgId: principal.orgId, authorId: principal.userId });
    await repos.scans.transition(scan.id, ['new'], 'running');
    await repos.results.store({ scanId: scan.id, imageId: image.id, productId }, { components: [], cryptoAssets: [], findings });
    await repos.scans.transition(scan.id, ['running'], 'done');
    return image.id;
  }

  beforeAll(async () => {
    repos = createRepositories(get().db, get().dialect);
    const org = await repos.identities.createOrg('acme');
    const user = await repos.identities.createUser({ orgId: org.id, email: 'a@acme.test', role: 'admin', passwordHash: null });
    principal = { userId: user.id, orgId: org.id, email: user.email, role: 'admin', kind: 'user' };
    const org2 = await repos.identities.createOrg('other');
    other = { ...principal, orgId: org2.id };
    productId = (await repos.products.create({ orgId: org.id, name: 'p', authorId: user.id })).id;
    left = await imageWithScan([
      finding('0001', { severity: 'critical', cvssLatestBaseScore: 9.8, isKev: true, matchConfidence: { label: 'exact-cpe', score: 0.9 } }),
      finding('0002', { severity: 'low', cvssLatestBaseScore: 3.1, matchConfidence: { label: 'name-only', score: 0.5 } }),
      finding('0003', { findingType: 'knownVulnerability', severity: 'high', pname: 'private-key', identifiers: [{ cwe: 'CWE-321' }] }),
    ]);
    right = await imageWithScan([
      finding('0001', { severity: 'critical', cvssLatestBaseScore: 9.8, isKev: true }),
      finding('0004', { severity: 'high', cvssLatestBaseScore: 7.5, epss: { probability: 0.5, percentile: 0.9 } }),
    ]);
  });

  it('needs a scope filter and names unknown fields and comparators', async () => {
    await expect(findingGrid(repos, principal, { filters: [] })).rejects.toThrow(/productId or imageId/);
    await expect(findingGrid(repos, principal, { filters: [{ field: 'productId', value: productId }, { field: 'colour', value: 'x' }] })).rejects.toThrow(/unknown field 'colour'/);
    await expect(findingGrid(repos, principal, { filters: [{ field: 'productId', value: productId, comparator: 'like' }] })).rejects.toThrow(/unknown comparator 'like'/);
  });

  it('caps list sizes itself, for routes whose schema does not (findingsReport:json)', async () => {
    const values = Array.from({ length: 50_000 }, (_, i) => `CVE-${i}`);
    await expect(findingGrid(repos, principal, { filters: [{ field: 'productId', value: productId }, { field: 'pname', value: values, comparator: 'in' }] }))
      .rejects.toThrow('filters[1].value: at most 1000 values; narrow the selection with another filter instead');
    const many = Array.from({ length: 21 }, () => ({ field: 'productId', value: productId }));
    await expect(findingGrid(repos, principal, { filters: many })).rejects.toThrow('filters: at most 20 filters');
    await expect(findingGrid(repos, principal, { filters: [{ field: 'productId', value: productId }, { field: 'pname', value: values.slice(0, 1000), comparator: 'in' }] }))
      .resolves.toMatchObject({ total: 0 });
  });

  it('lists the latest scan findings of every image in the product, sorted by severity', async () => {
    const r = await findingGrid(repos, principal, { filters: [{ field: 'productId', value: productId, comparator: 'equals' }], page: { num: 1, size: 100 } });
    expect(r.total).toBe(5);
    expect(r.rows[0]?.severity).toBe('critical');
    expect(r.rows.at(-1)?.severity).toBe('low');
    expect(r.rows.every((row) => row.issueStatus === 'new')).toBe(true);
  });

  it('filters by comparators, aliases and pages', async () => {
    const scope = { field: 'imageId', value: left, comparator: 'equals' };
    const bySeverity = await findingGrid(repos, principal, { filters: [scope, { field: 'severity', value: ['critical', 'high'], comparator: 'in' }] });
    expect(bySeverity.total).toBe(2);
    const between = await findingGrid(repos, principal, { filters: [scope, { field: 'cvssLatestBaseScore', value: [3, 4], comparator: 'between' }] });
    expect(between.rows.map((r) => r.pname)).toEqual(['CVE-2024-0002']);
    const contains = await findingGrid(repos, principal, { filters: [scope, { field: 'pname', value: 'PRIVATE', comparator: 'contains' }] });
    expect(contains.total).toBe(1);
    const notContains = await findingGrid(repos, principal, { filters: [scope, { field: 'pname', value: 'cve', comparator: 'notContains' }] });
    expect(notContains.total).toBe(1);
    const kev = await findingGrid(repos, principal, { filters: [scope, { field: 'isKev', value: 'true', comparator: 'equals' }] });
    expect(kev.rows.map((r) => r.pname)).toEqual(['CVE-2024-0001']);
    const cwe = await findingGrid(repos, principal, { filters: [scope, { field: 'identifiers', value: 'CWE-321', comparator: 'equals' }] });
    expect(cwe.total).toBe(1);
    const page2 = await findingGrid(repos, principal, { filters: [scope], page: { num: 2, size: 2 }, sortBy: { field: 'pname', direction: 'ascend' } });
    expect(page2.total).toBe(3);
    expect(page2.rows.map((r) => r.pname)).toEqual(['private-key']);
    await expect(findingGrid(repos, principal, { filters: [scope, { field: 'severity', value: 'huge' }] })).rejects.toThrow(/'huge' is not one of/);
  });

  it('filters and sorts dependency findings by match confidence', async () => {
    const scope = { field: 'imageId', value: left, comparator: 'equals' };
    const nameOnly = await findingGrid(repos, principal, { filters: [scope, { field: 'matchConfidence.label', value: 'name-only', comparator: 'equals' }] });
    expect(nameOnly.rows.map((r) => [r.pname, r.matchConfidence])).toEqual([['CVE-2024-0002', { label: 'name-only', score: 0.5 }]]);
    const sure = await findingGrid(repos, principal, { filters: [scope, { field: 'matchConfidence', value: [0.8, 1], comparator: 'between' }] });
    expect(sure.rows.map((r) => r.pname)).toEqual(['CVE-2024-0001']);
    const sorted = await findingGrid(repos, principal, { filters: [scope, { field: 'findingType', value: 'dependencyVulnerability' }], sortBy: { field: 'matchConfidence', direction: 'ascend' } });
    expect(sorted.rows.map((r) => r.pname)).toEqual(['CVE-2024-0002', 'CVE-2024-0001']);
    await expect(findingGrid(repos, principal, { filters: [scope, { field: 'matchConfidence.label', value: 'sure' }] })).rejects.toThrow(/'sure' is not one of/);
  });

  it('compares a baseline and a target image by fingerprint', async () => {
    const r = await findingGrid(repos, principal, {
      filters: [{ field: 'compareLeftImageId', value: left, comparator: 'equals' }, { field: 'compareRightImageId', value: right, comparator: 'equals' }],
      page: { size: 100 },
    });
    const status = Object.fromEntries(r.rows.map((row) => [row.pname as string, (row.comparison as { status: string }).status]));
    expect(status).toEqual({ 'CVE-2024-0001': 'unchanged', 'CVE-2024-0004': 'new', 'CVE-2024-0002': 'resolved', 'private-key': 'resolved' });
    const onlyNew = await findingGrid(repos, principal, {
      filters: [
        { field: 'compareLeftImageId', value: left, comparator: 'equals' }, { field: 'compareRightImageId', value: right, comparator: 'equals' },
        { field: 'comparison', value: ['found'], comparator: 'in' },
      ],
    });
    expect(onlyNew.rows.map((row) => row.pname)).toEqual(['CVE-2024-0004']);
  });

  it('carries an issue status forward to the same fingerprint in other images', async () => {
    const inLeft = await findingGrid(repos, principal, { filters: [{ field: 'imageId', value: left }, { field: 'pname', value: 'CVE-2024-0001' }] });
    const row = inLeft.rows[0]!;
    const stored = (await repos.findings.get(productId, row.id as string))!;
    await repos.findings.setStatus(stored, 'inProgress', 'looking', principal.userId);
    const inRight = await findingGrid(repos, principal, {
      filters: [{ field: 'imageId', value: right }, { field: 'issueStatus', value: ['in progress'], comparator: 'in' }],
    });
    expect(inRight.rows.map((r) => r.pname)).toEqual(['CVE-2024-0001']);
    const history = await repos.findings.history(productId, stored.fingerprint);
    expect(history.map((h) => [h.status, h.comment])).toEqual([['inProgress', 'looking']]);
  });

  it('never shows another organisation the findings', async () => {
    const r = await findingGrid(repos, other, { filters: [{ field: 'productId', value: productId }] });
    expect(r.total).toBe(0);
  });

  it('exports every matching row as CSV', async () => {
    const r = await findingGrid(repos, principal, { filters: [{ field: 'productId', value: productId }], page: { size: 1 } }, { all: true });
    const csv = gridCsv(r.rows);
    const lines = csv.trim().split('\r\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(/^id,pname,name,findingType,severity,issueStatus/);
  });

  it('streams the CSV export in batches: every row once, in the grid order, the same text as the whole export', async () => {
    const request = { filters: [{ field: 'productId', value: productId }], sortBy: { field: 'cvssLatestBaseScore', direction: 'descend' } };
    const whole = gridCsv((await findingGrid(repos, principal, request, { all: true })).rows);
    let streamed = '';
    for await (const piece of findingGridCsv(repos, principal, request)) streamed += piece;
    expect(streamed).toBe(whole);
    // a product of 4,500 findings spans three batches of 2,000
    const many = await repos.products.create({ orgId: principal.orgId, name: 'many', authorId: principal.userId });
    const saved = productId;
    productId = many.id;
    await imageWithScan(Array.from({ length: 4500 }, (_, i) => finding(String(i).padStart(5, '0'), { cvssLatestBaseScore: (i % 100) / 10 })));
    productId = saved;
    let text = '';
    for await (const piece of findingGridCsv(repos, principal, { filters: [{ field: 'productId', value: many.id }] })) text += piece;
    const lines = text.trim().split('\r\n').slice(1);
    expect(lines).toHaveLength(4500);
    expect(new Set(lines.map((l) => l.split(',')[0])).size).toBe(4500);
    expect(() => findingGridCsv(repos, principal, { filters: [] })).toThrow(/productId or imageId/);
  }, 60_000);
});

// Findings over HTTP: get one in full, change its status by CreateFindingState and PATCH, history, the status
// carried forward to the next image, compare, CSV; debug-symbol files; content-type and size errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineFinding } from '../../src/engine/types.js';
import { ADMIN, call, passwordToken, startTestServer, type TestServer } from '../support/server.js';

const finding = (fp: string, severity: EngineFinding['severity']): EngineFinding => ({
  fingerprint: fp, findingType: 'dependencyVulnerability', pname: `CVE-2023-${fp}`, name: `busybox ${fp}`, severity,
  identifiers: [{ cve: `CVE-2023-${fp}` }], occurrences: [{ path: 'bin/busybox', evidence: 'BusyBox v1.30.1' }],
  component: { ref: 'busybox@1.30.1', name: 'busybox', version: '1.30.1', cpe: 'cpe:2.3:a:busybox:busybox:1.30.1:*:*:*:*:*:*:*' },
  cvss: { cvssV3: { baseScore: 7.5, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H' } }, cvssLatestBaseScore: 7.5,
  references: [{ url: `https://nvd.nist.gov/vuln/detail/CVE-2023-${fp}` }], knownFixedVersion: '1.36.0',
});

describe('findings over HTTP', () => {
  let t: TestServer;
  let token: string;
  let productId: string;
  const images: string[] = [];

  async function imageWith(findings: EngineFinding[]): Promise<string> {
    const form = new FormData();
    form.set('imageName', `img${images.length}`);
    form.set('createScan', 'false');
    form.set('file', new Blob([Buffer.from('firmware')]), 'fw.bin');
    const image = await call(t.base, token, 'POST', `/api/v4/products/${productId}/images:upload`, form);
    const { repos } = t.server.runtime;
    const scan = await repos.scans.create({ imageId: image.body.id, productId, orgId: (await repos.products.list((await repos.identities.findOrgByName('default'))!.id))[0]!.orgId, authorId: image.body.author.id });
    await repos.scans.transition(scan.id, ['new'], 'running');
    await repos.results.store({ scanId: scan.id, imageId: image.body.id, productId }, { components: [], cryptoAssets: [], findings });
    await repos.scans.transition(scan.id, ['running'], 'done');
    images.push(image.body.id);
    return image.body.id;
  }

  beforeAll(async () => {
    t = await startTestServer({ env: { FIRMSCOPE_WORKERS: '0' } });
    token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
    productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'p' })).body.id.split('/')[1];
    await imageWith([finding('1111', 'high'), finding('2222', 'low')]);
    await imageWith([finding('1111', 'high'), finding('3333', 'critical')]);
  });
  afterAll(async () => t?.close());

  const grid = (body: unknown, query = '') => call(t.base, token, 'POST', `/api/v4/grids/findings:gridList${query}`, body);

  it('gets a finding in full and moves its status; the status carries forward', async () => {
    const rows = (await grid({ filters: [{ field: 'imageId', value: images[0] }, { field: 'pname', value: 'CVE-2023-1111' }] })).body.rows;
    const id = rows[0].id;
    const full = await call(t.base, token, 'GET', `/api/v4/products/${productId}/findings/${id}`);
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({
      pname: 'CVE-2023-1111', issueStatus: 'new', cvss: { cvssV3: { baseScore: 7.5 } }, predicates: [{ kev: false }], knownFixedVersion: '1.36.0',
      component: { name: 'busybox', version: '1.30.1' }, occurrences: [{ imageId: images[0], path: 'bin/busybox', evidence: 'BusyBox v1.30.1' }], history: [],
    });
    const state = await call(t.base, token, 'POST', `/api/v4/products/${productId}/findings/${id}/CreateFindingState`, { status: 'in progress', comment: 'triage' });
    expect(state.status).toBe(201);
    expect(state.body).toMatchObject({ findingId: id, status: 'inProgress', author: { email: ADMIN.email } });
    const patched = await call(t.base, token, 'PATCH', `/api/v4/products/${productId}/findings/${id}`, { issueStatus: 'remediated' });
    expect(patched.status).toBe(200);
    expect(patched.body.issueStatus).toBe('remediated');
    expect(patched.body.history.map((h: { status: string }) => h.status)).toEqual(['inProgress', 'remediated']);
    const later = (await grid({ filters: [{ field: 'imageId', value: images[1] }, { field: 'issueStatus', value: ['remediated'], comparator: 'in' }] })).body;
    expect(later.rows.map((r: { pname: string }) => r.pname)).toEqual(['CVE-2023-1111']);
    const bad = await call(t.base, token, 'POST', `/api/v4/products/${productId}/findings/${id}/CreateFindingState`, { status: 'closed' });
    expect(bad.status).toBe(400);
  });

  it('records a justification with a rejection, in the status and the history; a later change clears it', async () => {
    const rows = (await grid({ filters: [{ field: 'imageId', value: images[1] }, { field: 'pname', value: 'CVE-2023-3333' }] })).body.rows;
    const path = `/api/v4/products/${productId}/findings/${rows[0].id}`;
    const state = await call(t.base, token, 'POST', `${path}/CreateFindingState`, { status: 'rejected', justification: 'vulnerable_code_not_in_execute_path', comment: 'never called' });
    expect(state.status).toBe(201);
    expect(state.body).toMatchObject({ status: 'rejected', justification: 'vulnerable_code_not_in_execute_path', comment: 'never called' });
    expect((await call(t.base, token, 'GET', path)).body).toMatchObject({
      issueStatus: 'rejected', justification: 'vulnerable_code_not_in_execute_path',
      history: [{ status: 'rejected', justification: 'vulnerable_code_not_in_execute_path', comment: 'never called' }],
    });
    const wrongStatus = await call(t.base, token, 'PATCH', path, { issueStatus: 'in progress', justification: 'component_not_present' });
    expect(wrongStatus.status).toBe(400);
    expect(wrongStatus.body.message).toBe('justification applies only to status rejected (not affected), not to inProgress');
    const unknown = await call(t.base, token, 'PATCH', path, { issueStatus: 'rejected', justification: 'not_my_problem' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/^body\.justification must be one of: component_not_present, vulnerable_code_not_present, /);
    const patched = await call(t.base, token, 'PATCH', path, { issueStatus: 'in progress' });
    expect(patched.status).toBe(200);
    expect(patched.body.issueStatus).toBe('inProgress');
    expect(patched.body.justification).toBeUndefined();
    expect(patched.body.history.map((h: { status: string; justification?: string }) => [h.status, h.justification])).toEqual([
      ['rejected', 'vulnerable_code_not_in_execute_path'], ['inProgress', undefined],
    ]);
  });

  it('compares the two images and exports CSV', async () => {
    const compare = await grid({
      filters: [{ field: 'compareLeftImageId', value: images[0], comparator: 'equals' }, { field: 'compareRightImageId', value: images[1], comparator: 'equals' }],
      sortBy: { field: 'pname', direction: 'ascend' },
    });
    expect(compare.body.rows.map((r: { pname: string; comparison: { status: string } }) => [r.pname, r.comparison.status])).toEqual([
      ['CVE-2023-1111', 'unchanged'], ['CVE-2023-2222', 'resolved'], ['CVE-2023-3333', 'new'],
    ]);
    const csv = await grid({ filters: [{ field: 'productId', value: productId }], page: { size: 1 } }, '?contentType=csv');
    expect(String(csv.body).trim().split('\r\n')).toHaveLength(5);
  });

  it('attaches, lists, gets and downloads a debug symbol file', async () => {
    const form = new FormData();
    form.set('file', new Blob([Buffer.from('Microsoft C/C++ MSF 7.00\r\n')]), 'app.pdb');
    const base = `/api/v4/products/${productId}/images/${images[0]}/files`;
    const attached = await call(t.base, token, 'POST', base, form);
    expect(attached.status).toBe(201);
    expect(Object.keys(attached.body).sort()).toEqual(['createTime', 'filename', 'id', 'scanId']);
    const list = await call(t.base, token, 'GET', base);
    expect(list.body.files).toHaveLength(1);
    const one = await call(t.base, token, 'GET', `${base}/${attached.body.id}`);
    expect(one.body).toMatchObject({ filename: 'app.pdb', isAttachment: true, metadata: { kind: 'pdb' } });
    const download = await fetch(one.body.downloadUrl, { headers: { authorization: `Bearer ${token}` } });
    expect(Buffer.from(await download.arrayBuffer()).toString()).toBe('Microsoft C/C++ MSF 7.00\r\n');
    const image = await call(t.base, token, 'GET', `/api/v4/products/${productId}/images/${images[0]}`);
    expect(image.body.files.map((f: { id: string }) => f.id)).toEqual([attached.body.id]);
    expect((await call(t.base, token, 'POST', base, { file: 'x' })).status).toBe(400);
  });

  it('refuses wrong content types and oversized bodies', async () => {
    const text = await call(t.base, token, 'POST', '/api/v4/products', 'name=x', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    const big = await call(t.base, token, 'POST', '/api/v4/products', JSON.stringify({ name: 'x', description: 'y'.repeat(2 * 1024 * 1024) }), { 'content-type': 'application/json' });
    expect(big.status).toBe(413);
    const malformed = await call(t.base, token, 'POST', '/api/v4/products', '{"name":', { 'content-type': 'application/json' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/malformed/);
  });
});

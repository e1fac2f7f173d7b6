// Escalations over HTTP, created the real way: two scanned images with BusyBox, an NVD record imported into the
// server's vulnerability database and re-matching run against it, then KEV and EPSS rises. Lists, filters,
// acknowledges (newEscalationsCount drops on GET image) and the 400/401/403/404 cases; the static `-` segment
// never reaches the `/findings/:findingId` route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Component } from '../../src/engine/types.js';
import { readFeeds } from '../../src/engine/vulns/feed-reader.js';
import { addOrg } from '../../src/services/identity-admin.js';
import { reposOf } from '../support/repos-of.js';
import { rematchLatestImages } from '../../src/services/vuln-rematch.js';
import { VulnerabilityImporter } from '../../src/store/vulns-importer.js';
import { VulnerabilityReader } from '../../src/store/vulns-reader.js';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, startTestServer, type TestServer } from '../support/server.js';
import { haveShared, sharedPath } from '../support/shared.js';

const hasData = haveShared('vulndata', 'nvd-cve2.0-CVE-2021-42386.json');
const CVE = 'CVE-2021-42386';
const UNKNOWN = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

const busybox = (version: string): Component => ({
  ref: `busybox@${version}`, name: 'busybox', version, type: 'application', confidence: 0.95,
  cpe: `cpe:2.3:a:busybox:busybox:${version}:*:*:*:*:*:*:*`, paths: ['rootfs/bin/busybox'],
  evidence: [{ path: 'rootfs/bin/busybox', method: 'version-signature', match: `BusyBox v${version}` }], foundBy: ['version-signatures'],
});

type Row = { id: string; findingId?: string; fingerprint: string; imageId: string; reason: string; details: any; acknowledged: boolean; createTime: string; finding?: any };

for (const dialect of testDialects()) {
  describe.runIf(hasData)(`escalations over HTTP [${dialect}]`, () => {
    let t: TestServer;
    const tokens: Record<string, string> = {};
    let productId: string;
    let older: string;
    let latest: string;
    let vulns: VulnerabilityImporter;
    let vulnReader: VulnerabilityReader;

    /** Uploads an image and stores a finished scan whose only component is BusyBox `version`. */
    async function scannedImage(version: string): Promise<string> {
      const form = new FormData();
      form.set('imageName', `fw ${version}`);
      form.set('createScan', 'false');
      form.set('file', new Blob([Buffer.from(`firmware ${version}`)]), 'fw.bin');
      const image = await call(t.base, tokens.admin, 'POST', `/api/v4/products/${productId}/images:upload`, form);
      expect(image.status).toBe(201);
      const { repos } = t.server.runtime;
      const org = (await repos.identities.findOrgByName('default'))!;
      const scan = await repos.scans.create({ imageId: image.body.id, productId, orgId: org.id, authorId: image.body.author.id });
      await repos.scans.transition(scan.id, ['new'], 'running');
      await repos.results.store({ scanId: scan.id, imageId: image.body.id, productId }, { components: [busybox(version)], cryptoAssets: [], findings: [] });
      await repos.scans.transition(scan.id, ['running'], 'done');
      return image.body.id;
    }

    const path = (suffix = '', product = productId) => `/api/v4/products/${product}/findings/-/escalations${suffix}`;
    const list = async (query = '', token = tokens.admin): Promise<Row[]> => {
      const r = await call(t.base, token, 'GET', path(query));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.escalations;
    };
    const openCount = async (imageId: string) =>
      (await call(t.base, tokens.admin, 'GET', `/api/v4/products/${productId}/images/${imageId}`)).body.counts.newEscalationsCount as number;

    beforeAll(async () => {
      t = await startTestServer({ env: { FIRMSCOPE_WORKERS: '0' }, postgres: dialect === 'postgres' });
      tokens.admin = await passwordToken(t.base, ADMIN.email, ADMIN.password);
      for (const role of ['editor', 'viewer']) {
        expect((await call(t.base, tokens.admin, 'POST', '/api/v4/users', { email: `${role}@example.com`, password: `${role}-password`, role })).status).toBe(201);
        tokens[role] = await passwordToken(t.base, `${role}@example.com`, `${role}-password`);
      }
      await addOrg(t.server.runtime.repos.identities, { name: 'other', adminEmail: 'admin@other.test', adminPassword: 'other-password' });
      tokens.other = await passwordToken(t.base, 'admin@other.test', 'other-password');
      productId = (await call(t.base, tokens.admin, 'POST', '/api/v4/products', { name: 'router' })).body.id.split('/')[1];

      const { db } = t.server.runtime.database;
      vulns = new VulnerabilityImporter(db);
      vulnReader = new VulnerabilityReader(db);
      // The first image is the latest when the NVD record arrives; the second, scanned later, is matched on
      // the next change (a KEV entry and an EPSS rise) and escalates three ways.
      older = await scannedImage('1.30.1');
      await vulns.importItems(readFeeds([sharedPath('vulndata', `nvd-cve2.0-${CVE}.json`)]));
      expect(await rematchLatestImages(reposOf(db), vulnReader)).toMatchObject({ images: 1, newFindings: 1, escalations: 1 });
      latest = await scannedImage('1.31.1');
      await vulns.putKev([{ cveId: CVE, dateAdded: '2026-03-01', requiredAction: 'Update BusyBox.' }]);
      await vulns.putEpss([{ cveId: CVE, probability: 0.35, percentile: 0.97, date: '2026-03-01' }]);
      expect(await rematchLatestImages(reposOf(db), vulnReader, { epssThreshold: 0.1 })).toMatchObject({ images: 1, newFindings: 1, escalations: 1 });
      // The finding already carries KEV and EPSS, so only a new-vulnerability escalation so far; now make the
      // latest image's finding rise from an EPSS below the threshold.
      await vulns.putEpss([{ cveId: CVE, probability: 0.6, percentile: 0.99, date: '2026-03-02' }]);
      expect(await rematchLatestImages(reposOf(db), vulnReader, { epssThreshold: 0.5 })).toMatchObject({ updatedFindings: 1, escalations: 1 });
    });
    afterAll(async () => t?.close());

    it('lists the escalations newest first, with their findings', async () => {
      const rows = await list();
      expect(rows.map((r) => [r.imageId, r.reason])).toEqual([[latest, 'epss'], [latest, 'new-vulnerability'], [older, 'new-vulnerability']]);
      for (const r of rows) {
        expect(r.acknowledged).toBe(false);
        expect(r.finding).toMatchObject({ pname: CVE, name: expect.any(String), severity: 'high', componentName: 'busybox' });
      }
      expect(rows[0]!.finding).toMatchObject({ isKev: true, epssProbability: 0.6, componentVersion: '1.31.1' });
      expect(rows[0]!.details).toEqual({ epssProbability: { old: 0.35, new: 0.6 }, threshold: 0.5 });
      expect(rows[2]!.finding).toMatchObject({ isKev: false, componentVersion: '1.30.1' });
      expect(rows[2]!.finding.epssProbability).toBeUndefined();
      expect(rows[2]!.details).toEqual({ pname: CVE, severity: 'high', isKev: false });
      expect(new Set(rows.slice(0, 2).map((r) => r.fingerprint)).size).toBe(1);
      expect([...rows].sort((a, b) => b.createTime.localeCompare(a.createTime))).toEqual(rows);

      // findingId is the finding row of that image: the finding route serves it
      const finding = await call(t.base, tokens.admin, 'GET', `/api/v4/products/${productId}/findings/${rows[0]!.findingId}`);
      expect(finding.status).toBe(200);
      expect(finding.body).toMatchObject({ pname: CVE, imageId: latest, fingerprint: rows[0]!.fingerprint });
      expect(rows[1]!.findingId).toBe(rows[0]!.findingId);
      expect(rows[2]!.findingId).not.toBe(rows[0]!.findingId);

      // a viewer reads them too
      expect(await list('', tokens.viewer)).toEqual(rows);
    });

    it('filters by image, acknowledged and reason', async () => {
      expect((await list(`?imageId=${older}`)).map((r) => r.reason)).toEqual(['new-vulnerability']);
      expect((await list(`?imageId=${latest}`)).map((r) => r.reason)).toEqual(['epss', 'new-vulnerability']);
      expect(await list(`?imageId=${UNKNOWN}`)).toEqual([]);
      expect(await list('?acknowledged=true')).toEqual([]);
      expect(await list('?acknowledged=false')).toHaveLength(3);
      expect((await list('?reason=epss')).map((r) => r.imageId)).toEqual([latest]);
    });

    it('acknowledges escalations and lowers newEscalationsCount', async () => {
      expect(await openCount(latest)).toBe(2);
      expect(await openCount(older)).toBe(1);
      const [epss] = await list(`?imageId=${latest}&reason=epss`);
      const ack = await call(t.base, tokens.editor, 'POST', path(':acknowledge'), { ids: [epss!.id, UNKNOWN] });
      expect(ack.status).toBe(200);
      expect(ack.body).toEqual({ acknowledged: 1 });
      expect(await openCount(latest)).toBe(1);
      expect(await openCount(older)).toBe(1);
      // already acknowledged: nothing more to do
      expect((await call(t.base, tokens.editor, 'POST', path(':acknowledge'), { ids: [epss!.id] })).body).toEqual({ acknowledged: 0 });
      expect((await list('?acknowledged=true')).map((r) => r.id)).toEqual([epss!.id]);
      expect((await list('?acknowledged=false')).map((r) => r.reason)).toEqual(['new-vulnerability', 'new-vulnerability']);
      expect((await list(`?imageId=${latest}&acknowledged=true`))[0]).toMatchObject({ id: epss!.id, acknowledged: true });
      // another organisation cannot acknowledge this product's escalations
      const rest = (await list('?acknowledged=false')).map((r) => r.id);
      expect((await call(t.base, tokens.other, 'POST', path(':acknowledge'), { ids: rest })).status).toBe(404);
      const all = await call(t.base, tokens.admin, 'POST', path(':acknowledge'), { ids: rest });
      expect(all.body).toEqual({ acknowledged: 2 });
      expect(await openCount(latest)).toBe(0);
      expect(await openCount(older)).toBe(0);
    });

    it('refuses bad ids (400 naming the parameter), missing tokens (401), viewers acknowledging (403), other organisations (404)', async () => {
      const badProduct = await call(t.base, tokens.admin, 'GET', path('', 'not-a-ulid'));
      expect(badProduct.status).toBe(400);
      expect(badProduct.body.details[0]).toMatchObject({ field: 'params.productId', reason: 'must be a 26-character ULID' });
      const badImage = await call(t.base, tokens.admin, 'GET', path('?imageId=nope'));
      expect(badImage.status).toBe(400);
      expect(badImage.body.details[0].field).toBe('query.imageId');
      const badFlag = await call(t.base, tokens.admin, 'GET', path('?acknowledged=maybe'));
      expect(badFlag.status).toBe(400);
      expect(badFlag.body.details[0].field).toBe('query.acknowledged');
      const badIds = await call(t.base, tokens.admin, 'POST', path(':acknowledge'), { ids: ['x'] });
      expect(badIds.status).toBe(400);
      expect(badIds.body.details[0].field).toBe('body.ids.0');
      expect((await call(t.base, tokens.admin, 'POST', path(':acknowledge'), { ids: [] })).status).toBe(400);
      expect((await call(t.base, tokens.admin, 'POST', path(':acknowledge'), {})).body.details[0].field).toBe('body.ids');

      expect((await call(t.base, undefined, 'GET', path())).status).toBe(401);
      expect((await call(t.base, undefined, 'POST', path(':acknowledge'), { ids: [UNKNOWN] })).status).toBe(401);

      const viewer = await call(t.base, tokens.viewer, 'POST', path(':acknowledge'), { ids: [UNKNOWN] });
      expect(viewer.status).toBe(403);
      expect(viewer.body.permission).toBe('findings.update');

      expect((await call(t.base, tokens.other, 'GET', path())).status).toBe(404);
      const missing = await call(t.base, tokens.admin, 'GET', path('', UNKNOWN));
      expect(missing.status).toBe(404);
      expect(missing.body.details[0]).toMatchObject({ reason: 'notFound', field: 'productId' });
    });

    it('routes the static `-` segment, not the finding route, and documents both operations', async () => {
      // `-` is no ULID: had the request reached /findings/:findingId it would be a 400 on params.findingId
      const r = await call(t.base, tokens.admin, 'GET', `/api/v4/products/${productId}/findings/-/escalations`);
      expect(r.status).toBe(200);
      expect((await call(t.base, tokens.admin, 'GET', `/api/v4/products/${productId}/findings/-`)).body.details[0].field).toBe('params.findingId');
      const openapi = (await call(t.base, tokens.admin, 'GET', '/api/v4/openapi.json')).body;
      const documented = openapi.paths['/api/v4/products/{productId}/findings/-/escalations'];
      expect(documented.get.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['productId', 'imageId', 'acknowledged']));
      expect(documented.get.responses['200'].content['application/json'].schema.properties.escalations.items.properties)
        .toHaveProperty('finding');
      const ack = openapi.paths['/api/v4/products/{productId}/findings/-/escalations:acknowledge'];
      expect(ack.post.requestBody.content['application/json'].schema.required).toEqual(['ids']);
    });
  });
}

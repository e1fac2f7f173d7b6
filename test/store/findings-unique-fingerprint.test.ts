// Migration 0105 on a database written before it: duplicate findings (one fingerprint twice in a scan, as
// overlapping re-matches stored them) are removed keeping the lowest id, the status history that pointed at a
// removed row points at the kept one, and from then on the database refuses a second row with that fingerprint.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { newId } from '../../src/store/ids.js';
import { migrations } from '../../src/store/migrations/index.js';
import { isUniqueViolation } from '../../src/store/unique-violation.js';
import { freshPostgresUrl, testDialects } from '../support/databases.js';

const T = '2026-01-01T00:00:00.000Z';
const BEFORE_0105 = migrations.slice(0, migrations.findIndex(([name]) => name === '0105-findings-unique-fingerprint'));

/** An organisation, product and image with two finished scans (rows written as the schema before 0105 allowed). */
async function twoScans(db: Kysely<any>): Promise<{ product: string; image: string; scans: [string, string] }> {
  const [org, product, image] = [newId(), newId(), newId()];
  await db.insertInto('organisations').values({ id: org, name: `org-${org}`, create_time: T }).execute();
  await db.insertInto('products').values({ id: product, org_id: org, name: 'p', description: null, author_id: 'u', is_archived: 0, create_time: T, update_time: T }).execute();
  await db.insertInto('images').values({
    id: image, product_id: product, org_id: org, name: 'fw', version: '1', file_name: 'fw.bin', blob_key: 'k', size: 1,
    sha256: 'a', sha1: 'b', md5: 'c', detected_type: null, author_id: 'u', is_archived: 0, create_time: T, update_time: T,
  }).execute();
  const scans: [string, string] = [newId(), newId()];
  for (const id of scans) {
    await db.insertInto('scans').values({
      id, image_id: image, product_id: product, org_id: org, author_id: 'u', state: 'done', state_id: newId(), state_time: T,
      error: null, progress_phase: null, progress_percent: null, engine_version: '0.1.0', result_blob_key: null, create_time: T,
    }).execute();
  }
  return { product, image, scans };
}

for (const dialect of testDialects()) {
  describe(`migration 0105-findings-unique-fingerprint [${dialect}]`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-0105-'));
    let drop = async () => {};
    afterAll(async () => {
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('removes duplicate findings keeping the lowest id, moves their status history to it, then refuses duplicates', async () => {
      const pg = dialect === 'postgres' ? await freshPostgresUrl() : undefined;
      if (pg) drop = pg.drop;
      const finding = (id: string, scanId: string, fingerprint: string, ref: { product: string; image: string }) => ({
        id, scan_id: scanId, image_id: ref.image, product_id: ref.product, fingerprint, finding_type: 'dependencyVulnerability', pname: `CVE-${fingerprint}`,
        name: fingerprint, severity: 'high', cvss_score: null, epss_probability: null, is_kev: 0, component_name: null, component_version: null,
        create_time: T, data: JSON.stringify({ id }),
      });
      const history = (findingId: string, ref: { product: string }, fingerprint: string) => ({
        id: newId(), product_id: ref.product, fingerprint, finding_id: findingId, status: 'affected', comment: null, author_id: 'u', create_time: T, justification: null,
      });

      const old = await openDatabase({ url: pg?.url, dataDir, migrations: BEFORE_0105 });
      let ref: Awaited<ReturnType<typeof twoScans>>;
      const ids = [newId(), newId(), newId(), newId(), newId()].sort();
      const [lowest, second, third, other, otherScan] = ids as [string, string, string, string, string];
      try {
        ref = await twoScans(old.db);
        const [scan, laterScan] = ref.scans;
        // the duplicates inserted out of id order, so "first inserted" and "lowest id" differ
        for (const row of [finding(third, scan, 'x', ref), finding(lowest, scan, 'x', ref), finding(second, scan, 'x', ref), finding(other, scan, 'y', ref), finding(otherScan, laterScan, 'x', ref)]) {
          await old.db.insertInto('findings').values(row).execute();
        }
        await old.db.insertInto('finding_status_history').values([history(third, ref, 'x'), history(other, ref, 'y')]).execute();
      } finally {
        await old.close();
      }

      const migrated = await openDatabase({ url: pg?.url, dataDir });
      try {
        const rows = await migrated.db.selectFrom('findings').select(['id', 'scan_id', 'fingerprint']).orderBy('id').execute();
        expect(rows).toEqual([
          { id: lowest, scan_id: ref.scans[0], fingerprint: 'x' },
          { id: other, scan_id: ref.scans[0], fingerprint: 'y' },
          { id: otherScan, scan_id: ref.scans[1], fingerprint: 'x' },
        ]);
        const moved = await migrated.db.selectFrom('finding_status_history').select(['fingerprint', 'finding_id']).orderBy('fingerprint').execute();
        expect(moved).toEqual([{ fingerprint: 'x', finding_id: lowest }, { fingerprint: 'y', finding_id: other }]);

        const again = migrated.db.insertInto('findings').values(finding(newId(), ref.scans[0], 'x', ref)).execute();
        const error = await again.then(() => undefined, (e: unknown) => e);
        expect(isUniqueViolation(error), String(error)).toBe(true);
        // the same fingerprint in another scan is still fine
        const elsewhere = await twoScans(migrated.db);
        await migrated.db.insertInto('findings').values(finding(newId(), elsewhere.scans[0], 'x', elsewhere)).execute();
        expect(await migrated.db.selectFrom('findings').select('id').where('fingerprint', '=', 'x').execute()).toHaveLength(3);
      } finally {
        await migrated.close();
      }
    });
  });
}

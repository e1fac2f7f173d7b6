// Migration 0105 on a database written before it: duplicate findings (one fingerprint twice in a scan, as
// overlapping re-matches stored them) are removed keeping the lowest id, the status history that pointed at a
// removed row points at the kept one, and from then on the database refuses a second row with that fingerprint.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { newId } from '../../src/ids.js';
import { migrations } from '../../src/store/migrations/index.js';
import { isUniqueViolation } from '../../src/store/unique-violation.js';
import type { Database } from '../../src/store/schema.js';
import { freshPostgresUrl, testDialects } from '../support/databases.js';
import { productWithImages } from '../support/store-fixtures.js';

const T = '2026-01-01T00:00:00.000Z';
const BEFORE_0105 = migrations.slice(0, migrations.findIndex(([name]) => name === '0105-findings-unique-fingerprint'));

type ScanOf = { product: string; image: string; scan: string };

/** Two finished scans of a product (rows as the schema before 0105 allowed them). */
async function twoScans(db: Kysely<Database>): Promise<[ScanOf, ScanOf]> {
  const { product, image } = await productWithImages(db);
  const at = async (version: string) => {
    const { imageId, scanId } = await image(T, version, []);
    return { product, image: imageId, scan: scanId };
  };
  return [await at('1.0'), await at('1.1')];
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
      const finding = (id: string, at: ScanOf, fingerprint: string) => ({
        id, scan_id: at.scan, image_id: at.image, product_id: at.product, fingerprint, finding_type: 'dependencyVulnerability', pname: `CVE-${fingerprint}`,
        name: fingerprint, severity: 'high', cvss_score: null, epss_probability: null, is_kev: 0, component_name: null, component_version: null,
        create_time: T, data: JSON.stringify({ id }),
      });
      const history = (findingId: string, at: { product: string }, fingerprint: string) => ({
        id: newId(), product_id: at.product, fingerprint, finding_id: findingId, status: 'affected', comment: null, author_id: 'u', create_time: T, justification: null,
      });

      const old = await openDatabase({ url: pg?.url, dataDir, migrations: BEFORE_0105 });
      let scans: [ScanOf, ScanOf];
      const ids = [newId(), newId(), newId(), newId(), newId()].sort();
      const [lowest, second, third, other, otherScan] = ids as [string, string, string, string, string];
      try {
        scans = await twoScans(old.db);
        const [scan, laterScan] = scans;
        // the duplicates inserted out of id order, so "first inserted" and "lowest id" differ
        for (const row of [finding(third, scan, 'x'), finding(lowest, scan, 'x'), finding(second, scan, 'x'), finding(other, scan, 'y'), finding(otherScan, laterScan, 'x')]) {
          await old.db.insertInto('findings').values(row).execute();
        }
        await old.db.insertInto('finding_status_history').values([history(third, scan, 'x'), history(other, scan, 'y')]).execute();
      } finally {
        await old.close();
      }

      const migrated = await openDatabase({ url: pg?.url, dataDir });
      try {
        const rows = await migrated.db.selectFrom('findings').select(['id', 'scan_id', 'fingerprint']).orderBy('id').execute();
        expect(rows).toEqual([
          { id: lowest, scan_id: scans[0].scan, fingerprint: 'x' },
          { id: other, scan_id: scans[0].scan, fingerprint: 'y' },
          { id: otherScan, scan_id: scans[1].scan, fingerprint: 'x' },
        ]);
        const moved = await migrated.db.selectFrom('finding_status_history').select(['fingerprint', 'finding_id']).orderBy('fingerprint').execute();
        expect(moved).toEqual([{ fingerprint: 'x', finding_id: lowest }, { fingerprint: 'y', finding_id: other }]);

        const again = migrated.db.insertInto('findings').values(finding(newId(), scans[0], 'x')).execute();
        const error = await again.then(() => undefined, (e: unknown) => e);
        expect(isUniqueViolation(error), String(error)).toBe(true);
        // the same fingerprint in another scan is still fine
        const [elsewhere] = await twoScans(migrated.db);
        await migrated.db.insertInto('findings').values(finding(newId(), elsewhere, 'x')).execute();
        expect(await migrated.db.selectFrom('findings').select('id').where('fingerprint', '=', 'x').execute()).toHaveLength(3);
      } finally {
        await migrated.close();
      }
    });
  });
}

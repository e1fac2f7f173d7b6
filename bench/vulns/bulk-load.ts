// Loads many records into the vulnerability tables in large batches (same rows as VulnerabilityRepository
// writes), so the matching benchmark can build its 300,000-record database in reasonable time.
import type { Kysely } from 'kysely';
import { recordKeys } from '../../src/engine/vulns/memory-source.js';
import type { VulnerabilityRecord } from '../../src/engine/vulns/source.js';
import type { Database } from '../../src/store/schema.js';
import { criteriaRows, insertCriteria } from '../../src/store/vulns-criteria.js';

export async function bulkLoad(db: Kysely<Database>, records: VulnerabilityRecord[], batch = 500): Promise<void> {
  const now = new Date().toISOString();
  for (let i = 0; i < records.length; i += batch) {
    const part = records.slice(i, i + batch);
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('vuln_records').values(part.map((r) => ({
        source: r.source ?? 'nvd', record_id: r.sourceId ?? r.id, vuln_id: r.id, modified: r.modified ?? null,
        published: r.published ?? null, data: JSON.stringify(r), imported_at: now,
      }))).onConflict((oc) => oc.doNothing()).execute();
      const products = part.flatMap((r) => recordKeys(r).products.map(([vendor, product]) => ({ vendor, product, source: r.source ?? 'nvd', record_id: r.sourceId ?? r.id })));
      for (let j = 0; j < products.length; j += batch) {
        await trx.insertInto('vuln_products').values(products.slice(j, j + batch)).onConflict((oc) => oc.doNothing()).execute();
      }
      await insertCriteria(trx, part.flatMap((r) => criteriaRows(r, now)));
    });
  }
}

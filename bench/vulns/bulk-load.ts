// Loads many records into the vulnerability tables through the import's batch writer, in large batches, so the
// matching benchmark can build its 300,000-record database in reasonable time.
import type { Kysely } from 'kysely';
import type { VulnerabilityRecord } from '../../src/engine/vulns/source.js';
import type { Database } from '../../src/store/schema.js';
import { writeRecords } from '../../src/store/vulns-record-writer.js';

export async function bulkLoad(db: Kysely<Database>, records: VulnerabilityRecord[], batch = 1000): Promise<void> {
  for (let i = 0; i < records.length; i += batch) await writeRecords(db, records.slice(i, i + batch));
}

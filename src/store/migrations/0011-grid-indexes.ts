// Frozen: indexes of the findings grid at fleet size (a product with tens of thousands of findings).
//  - findings_grid_product and findings_grid_image hold a product's (an image's) findings in the grid's default
//    order (severity rank as finding-grid.ts computes it, CVSS descending, id), with scan_id, so the first page is
//    read in order and stops after the page instead of sorting every finding, and the total counts from the index
//    alone (the latest-scan check needs only scan_id). The image one replaces findings_image, its prefix.
//  - scans_image_done makes the latest-completed-scan check (grid-query.ts latestDoneScans) an index probe per scan.
// Portable SQL (SQLite and PostgreSQL both index expressions). Never edit; add a new migration instead.
import { sql, type Kysely } from 'kysely';

/** Must stay the very expression of finding-grid.ts SEVERITY_RANK, or the index cannot serve its ORDER BY. */
const SEVERITY_RANK = sql`(case severity when 'critical' then 5 when 'high' then 4 when 'medium' then 3 when 'low' then 2 else 1 end)`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index findings_grid_product on findings (product_id, ${SEVERITY_RANK} desc, cvss_score desc, id, scan_id)`.execute(db);
  await sql`create index findings_grid_image on findings (image_id, ${SEVERITY_RANK} desc, cvss_score desc, id, scan_id)`.execute(db);
  await db.schema.dropIndex('findings_image').execute();
  await db.schema.createIndex('scans_image_done').on('scans').columns(['image_id', 'state', 'create_time', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migration 0011-grid-indexes cannot be reverted');
}

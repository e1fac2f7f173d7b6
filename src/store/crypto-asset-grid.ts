// The cryptographic assets grid: assets of each image's latest completed scan (or of a named scan) in the
// caller's organisation, filtered and paged.
import type { Kysely } from 'kysely';
import type { CryptoAsset } from '../engine/types.js';
import { conditionSql, countedPage, latestDoneScans, type GridCondition } from './grid-query.js';
import type { Database } from './schema.js';

export type CryptoColumn = 'product_id' | 'image_id' | 'scan_id' | 'asset_type' | 'name' | 'is_expired';

export interface CryptoCondition extends GridCondition<CryptoColumn> {
  comparator: 'equals' | 'in' | 'contains' | 'notContains';
}

export interface CryptoGridRow extends CryptoAsset {
  id: string;
  productId: string;
  imageId: string;
  scanId: string;
}

export interface CryptoGridCriteria {
  orgId: string;
  conditions: CryptoCondition[];
  sort: { column: CryptoColumn; direction: 'asc' | 'desc' };
  offset: number;
  limit?: number;
}

export async function queryCryptoAssetGrid(db: Kysely<Database>, criteria: CryptoGridCriteria): Promise<{ total: number; rows: CryptoGridRow[] }> {
  const explicitScan = criteria.conditions.some((c) => c.column === 'scan_id');
  let query = db
    .selectFrom('crypto_assets as c')
    .innerJoin('products as p', 'p.id', 'c.product_id')
    .where('p.org_id', '=', criteria.orgId);
  if (!explicitScan) query = query.where('c.scan_id', 'in', latestDoneScans(db));
  for (const condition of criteria.conditions) query = query.where(conditionSql('c', condition));
  const selected = (q: typeof query) => q.select(['c.id', 'c.product_id', 'c.image_id', 'c.scan_id', 'c.data']);
  const { total, rows } = await countedPage(query, selected, 'c', { ...criteria, sort: [criteria.sort] });
  return {
    total,
    rows: rows.map((r) => ({ ...(JSON.parse(r.data) as CryptoAsset), id: r.id, productId: r.product_id, imageId: r.image_id, scanId: r.scan_id })),
  };
}

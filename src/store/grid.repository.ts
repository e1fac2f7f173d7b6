// The searchable grids (findings, crypto assets, binaries) of the organisation's latest completed scans: the
// SQL of each lives beside it (*-grid.ts); services parse and validate the request into its criteria.
import type { Kysely } from 'kysely';
import { queryBinaryGrid, type BinaryGridCriteria, type BinaryGridRow } from './binary-grid.js';
import { queryCryptoAssetGrid, type CryptoGridCriteria, type CryptoGridRow } from './crypto-asset-grid.js';
import { queryFindingGrid, queryFindingGridIds, type GridCriteria, type GridRow } from './finding-grid.js';
import type { Database } from './schema.js';

export interface GridPage<Row> {
  total: number;
  rows: Row[];
}

export class GridRepository {
  constructor(private readonly db: Kysely<Database>) {}

  findings(criteria: GridCriteria): Promise<GridPage<GridRow>> {
    return queryFindingGrid(this.db, criteria);
  }

  /** Ids of every matching finding, in the grid's order (a streamed export, see queryFindingGridIds). */
  findingIds(criteria: Omit<GridCriteria, 'offset' | 'limit'>): Promise<string[]> {
    return queryFindingGridIds(this.db, criteria);
  }

  cryptoAssets(criteria: CryptoGridCriteria): Promise<GridPage<CryptoGridRow>> {
    return queryCryptoAssetGrid(this.db, criteria);
  }

  binaries(criteria: BinaryGridCriteria): Promise<GridPage<BinaryGridRow>> {
    return queryBinaryGrid(this.db, criteria);
  }
}

// POST /api/v4/grids/cryptographicAssets:gridList: validates the request and runs the store query.
import type { Principal } from '../auth/principal.js';
import type { CryptoColumn, CryptoCondition } from '../store/crypto-asset-grid.js';
import { booleanValue, filterComparator, filterValues, gridError as bad, gridFilters, gridPage, gridSort, type GridRequest } from './grid-request.js';
import type { Repositories } from '../store/repositories.js';

// A Map (grid-request.ts says why).
const FIELDS = new Map<string, CryptoColumn>(Object.entries({
  productId: 'product_id', imageId: 'image_id', scanId: 'scan_id', assetType: 'asset_type', name: 'name', isExpired: 'is_expired',
} satisfies Record<string, CryptoColumn>));
const COMPARATORS = ['equals', 'in', 'contains', 'notContains'] as const;

export async function cryptoAssetGrid(repos: Repositories, principal: Principal, request: GridRequest) {
  const filters = gridFilters(request, 'productId, imageId or scanId');
  const conditions: CryptoCondition[] = filters.map((filter, i) => {
    const column = FIELDS.get(String(filter.field));
    if (!column) bad(`filters[${i}]: unknown field '${String(filter.field)}'; use one of ${[...FIELDS.keys()].join(', ')}`, `filters[${i}].field`);
    const comparator = filterComparator(filter, i, COMPARATORS);
    // Objects and nulls count as missing values here, checked before filterValues checks the arity.
    if ([filter.value].flat().some((v) => v === undefined || typeof v === 'object')) bad(`filters[${i}]: value is required`, `filters[${i}].value`);
    const raw = filterValues(filter, i, comparator);
    const values = column === 'is_expired' ? raw.map((v) => booleanValue(v, `filters[${i}].value`)) : raw.map(String);
    return { column, comparator, values };
  });
  if (!conditions.some((c) => c.column === 'product_id' || c.column === 'image_id' || c.column === 'scan_id')) {
    bad('a productId, imageId or scanId filter is required to scope the grid', 'filters');
  }
  const [sort] = gridSort(request, FIELDS, [{ column: 'name', direction: 'asc' }]);
  return repos.grids.cryptoAssets({ orgId: principal.orgId, conditions, sort: sort!, ...gridPage(request) });
}

// POST /api/v4/grids/cryptographicAssets:gridList: validates the request and runs the store query.
import type { Principal } from '../auth/principal.js';
import { queryCryptoAssetGrid, type CryptoColumn, type CryptoCondition } from '../store/crypto-asset-grid.js';
import { InvalidInputError } from './errors.js';
import type { GridRequest } from './finding-grid.js';
import { checkListSizes, MAX_PAGE_SIZE } from './finding-grid.js';
import type { Repositories } from './repositories.js';

// A Map: field names come from the request, and '__proto__' or 'constructor' must be unknown (400), not inherited.
const FIELDS = new Map<string, CryptoColumn>(Object.entries({
  productId: 'product_id', imageId: 'image_id', scanId: 'scan_id', assetType: 'asset_type', name: 'name', isExpired: 'is_expired',
} satisfies Record<string, CryptoColumn>));
const COMPARATORS = ['equals', 'in', 'contains', 'notContains'] as const;

function bad(message: string, field: string): never {
  throw new InvalidInputError(message, [{ reason: 'invalidArgument', field }]);
}

export async function cryptoAssetGrid(repos: Repositories, principal: Principal, request: GridRequest) {
  if (!Array.isArray(request.filters)) bad('filters is required: an array of {field, value, comparator} with a productId, imageId or scanId scope', 'filters');
  checkListSizes(request.filters);
  const conditions: CryptoCondition[] = request.filters.map((filter, i) => {
    const column = FIELDS.get(String(filter.field));
    if (!column) bad(`filters[${i}]: unknown field '${String(filter.field)}'; use one of ${[...FIELDS.keys()].join(', ')}`, `filters[${i}].field`);
    const comparator = String(filter.comparator ?? 'equals') as CryptoCondition['comparator'];
    if (!COMPARATORS.includes(comparator)) bad(`filters[${i}]: unknown comparator '${comparator}'; use one of ${COMPARATORS.join(', ')}`, `filters[${i}].comparator`);
    const raw = Array.isArray(filter.value) ? filter.value : [filter.value];
    if (raw.length === 0 || raw.some((v) => v === undefined || typeof v === 'object')) bad(`filters[${i}]: value is required`, `filters[${i}].value`);
    if (comparator !== 'in' && raw.length !== 1) bad(`filters[${i}]: comparator ${comparator} takes one value`, `filters[${i}].value`);
    const values = column === 'is_expired' ? raw.map((v) => (v === true || v === 'true' || v === 1 || v === '1' ? 1 : 0)) : raw.map(String);
    return { column, comparator, values };
  });
  if (!conditions.some((c) => c.column === 'product_id' || c.column === 'image_id' || c.column === 'scan_id')) {
    bad('a productId, imageId or scanId filter is required to scope the grid', 'filters');
  }
  const size = request.page?.size ?? 10;
  const num = Math.max(1, request.page?.num ?? 1);
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) bad(`page.size must be 1 to ${MAX_PAGE_SIZE}`, 'page.size');
  const sortBy = Array.isArray(request.sortBy) ? request.sortBy[0] : request.sortBy;
  const sortColumn = sortBy ? FIELDS.get(String(sortBy.field)) : 'name';
  if (!sortColumn) bad(`sortBy: unknown field '${String(sortBy?.field)}'`, 'sortBy.field');
  return queryCryptoAssetGrid(repos.db, {
    orgId: principal.orgId, conditions, offset: (num - 1) * size, limit: size,
    sort: { column: sortColumn, direction: sortBy?.direction === 'descend' ? 'desc' : 'asc' },
  });
}

// What every grid request shares (API-NOTES "Findings grid"): the body shape, the list caps, comparators and
// value arity, 1-based paging and sort keys. Field names and values come from the request: look-ups go through
// Maps, so '__proto__', 'constructor' or 'toString' are unknown names (400), never an inherited Object property
// handed to the SQL builder. The findings, cryptographic-asset and binary grids all validate with these.
import type { Comparator } from '../store/grid-query.js';
import { InvalidInputError } from '../errors.js';

export interface GridRequest {
  filters?: Array<{ field?: unknown; value?: unknown; comparator?: unknown }>;
  page?: { num?: number; size?: number };
  sortBy?: { field?: unknown; direction?: unknown } | Array<{ field?: unknown; direction?: unknown }>;
}

export type GridFilter = NonNullable<GridRequest['filters']>[number];

export interface GridResult {
  total: number;
  rows: Array<Record<string, unknown>>;
}

export const MAX_PAGE_SIZE = 100;
/**
 * Every value of an `in`/`overlaps` list is one bound parameter, and a statement may have at most 32,766 on
 * SQLite (SQLITE_MAX_VARIABLE_NUMBER) and 65,535 on PostgreSQL (the wire protocol's count): without a cap a long
 * list answered 500. MAX_FILTERS × MAX_LIST_VALUES = 20,000 leaves room for the query's own parameters on both.
 * A longer selection is better made by a broader filter (productId, imageId, severity).
 */
export const MAX_LIST_VALUES = 1000;
export const MAX_FILTERS = 20;

export function gridError(message: string, field: string): never {
  throw new InvalidInputError(message, [{ reason: 'invalidArgument', field }]);
}

/** The caps above, for callers whose schema does not check them (every grid runs this). */
export function checkListSizes(filters: GridFilter[]): void {
  if (filters.length > MAX_FILTERS) gridError(`filters: at most ${MAX_FILTERS} filters`, 'filters');
  for (const [i, filter] of filters.entries()) {
    if (Array.isArray(filter?.value) && filter.value.length > MAX_LIST_VALUES) {
      gridError(`filters[${i}].value: at most ${MAX_LIST_VALUES} values; narrow the selection with another filter instead`, `filters[${i}].value`);
    }
  }
}

/** The request's filters, present and within the caps; `scope` says which filters scope the grid. */
export function gridFilters(request: GridRequest, scope: string): GridFilter[] {
  if (!Array.isArray(request.filters)) gridError(`filters is required: an array of {field, value, comparator} with a ${scope} scope`, 'filters');
  checkListSizes(request.filters);
  return request.filters;
}

/** The filter's comparator (default equals), one of `allowed`. */
export function filterComparator<C extends Comparator>(filter: GridFilter, i: number, allowed: readonly C[]): C {
  const comparator = String(filter?.comparator ?? 'equals') as C;
  if (!allowed.includes(comparator)) gridError(`filters[${i}]: unknown comparator '${comparator}'; use one of ${allowed.join(', ')}`, `filters[${i}].comparator`);
  return comparator;
}

/** The filter's values as a list, checked against what the comparator takes (between: [low, high]). */
export function filterValues(filter: GridFilter, i: number, comparator: Comparator): unknown[] {
  const many = comparator === 'in' || comparator === 'overlaps' || comparator === 'between';
  const values = Array.isArray(filter.value) ? filter.value : filter.value === undefined ? [] : [filter.value];
  if (values.length === 0) gridError(`filters[${i}]: value is required`, `filters[${i}].value`);
  if (!many && values.length !== 1) gridError(`filters[${i}]: comparator ${comparator} takes one value`, `filters[${i}].value`);
  if (comparator === 'between' && values.length !== 2) gridError(`filters[${i}]: between takes [low, high]`, `filters[${i}].value`);
  return values;
}

/** A boolean filter value (true/false, 1/0, as JSON or text) as the stored 0/1. */
export function booleanValue(raw: unknown, field: string): number {
  if (raw === true || raw === 'true' || raw === 1 || raw === '1') return 1;
  if (raw === false || raw === 'false' || raw === 0 || raw === '0') return 0;
  gridError(`filter ${field}: expected true or false`, field);
}

/** A numeric filter value. */
export function numberValue(raw: unknown, field: string): number {
  const n = typeof raw === 'number' || typeof raw === 'string' ? Number(raw) : Number.NaN;
  if (typeof raw === 'string' && raw.trim() === '') gridError(`filter ${field}: '' is not a number`, field);
  if (!Number.isFinite(n)) gridError(`filter ${field}: '${String(raw)}' is not a number`, field);
  return n;
}

/** `page.num` (1-based; 0 means 1) and `page.size` (default 10) as offset and limit. */
export function gridPage(request: GridRequest): { offset: number; limit: number } {
  const size = request.page?.size ?? 10;
  const num = request.page?.num ?? 1;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) gridError(`page.size must be 1 to ${MAX_PAGE_SIZE}`, 'page.size');
  if (!Number.isInteger(num) || num < 0) gridError('page.num must be a positive integer (1-based)', 'page.num');
  return { offset: (Math.max(1, num) - 1) * size, limit: size };
}

/** The sort keys of `sortBy` (one or a list), each a field of `columns`; `fallback` when none is given. */
export function gridSort<Column>(request: GridRequest, columns: ReadonlyMap<string, Column>, fallback: Array<{ column: NoInfer<Column>; direction: 'asc' | 'desc' }>) {
  const sorts = request.sortBy === undefined ? [] : Array.isArray(request.sortBy) ? request.sortBy : [request.sortBy];
  const sort = sorts.map((s, i) => {
    const column = columns.get(String(s?.field));
    if (column === undefined) gridError(`sortBy[${i}]: unknown field '${String(s?.field)}'; use one of ${[...columns.keys()].join(', ')}`, 'sortBy.field');
    const direction = s.direction ?? 'ascend';
    if (direction !== 'ascend' && direction !== 'descend') gridError(`sortBy[${i}]: direction must be ascend or descend`, 'sortBy.direction');
    return { column, direction: direction === 'ascend' ? ('asc' as const) : ('desc' as const) };
  });
  return sort.length > 0 ? sort : fallback;
}

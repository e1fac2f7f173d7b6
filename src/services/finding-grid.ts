// The findings grid request (API-NOTES "Findings grid"): validates filters, comparators, aliases, paging and
// sorting, checks scope, runs the store query and shapes rows.
import type { Principal } from '../auth/principal.js';
import type { EngineFinding } from '../engine/types.js';
import { queryFindingGrid, type Comparator, type GridColumn, type GridCondition, type GridRow } from '../store/finding-grid.js';
import { isUlid } from '../store/ids.js';
import { InvalidInputError } from './errors.js';
import type { Repositories } from './repositories.js';

export interface GridRequest {
  filters?: Array<{ field?: unknown; value?: unknown; comparator?: unknown }>;
  page?: { num?: number; size?: number };
  sortBy?: { field?: unknown; direction?: unknown } | Array<{ field?: unknown; direction?: unknown }>;
}

// Field names and values come from the request: look-up tables are Maps, so '__proto__', 'constructor' or
// 'toString' are unknown names (400), never an inherited Object property handed to the SQL builder.
const FIELDS = new Map<string, GridColumn>(Object.entries({
  id: 'id', pname: 'pname', name: 'name', findingType: 'finding_type', severity: 'severity', issueStatus: 'issue_status',
  cvssLatestBaseScore: 'cvss_score', epssProbability: 'epss_probability', isKev: 'is_kev', componentName: 'component_name',
  componentVersion: 'component_version', productId: 'product_id', imageId: 'image_id', scanId: 'scan_id', createTime: 'create_time',
  fingerprint: 'fingerprint', identifiers: 'data', comparison: 'comparison', 'comparison.status': 'comparison',
} satisfies Record<string, GridColumn>));
const SORT = new Map<string, GridColumn>([...FIELDS, ['severity', 'severity_rank']]);
const COMPARATORS: Comparator[] = ['equals', 'in', 'contains', 'notContains', 'between', 'overlaps'];
const ENUMS: Partial<Record<GridColumn, string[]>> = {
  severity: ['critical', 'high', 'medium', 'low', 'informational'],
  issue_status: ['new', 'inProgress', 'remediated', 'rejected'],
  finding_type: ['knownVulnerability', 'maliciousCode', 'dependencyVulnerability'],
  comparison: ['new', 'resolved', 'unchanged'],
};
const ALIASES: Partial<Record<GridColumn, Map<string, string>>> = {
  issue_status: new Map([['in progress', 'inProgress'], ['inprogress', 'inProgress'], ['in_progress', 'inProgress']]),
  severity: new Map([['unspecified', 'informational'], ['info', 'informational']]),
  comparison: new Map([['found', 'new'], ['notfound', 'resolved'], ['notchanged', 'unchanged']]),
};

export const MAX_PAGE_SIZE = 100;
/**
 * Every value of an `in`/`overlaps` list is one bound parameter, and a statement may have at most 32,766 on
 * SQLite (SQLITE_MAX_VARIABLE_NUMBER) and 65,535 on PostgreSQL (the wire protocol's count): without a cap a long
 * list answered 500. MAX_FILTERS × MAX_LIST_VALUES = 20,000 leaves room for the query's own parameters on both.
 * A longer selection is better made by a broader filter (productId, imageId, severity).
 */
export const MAX_LIST_VALUES = 1000;
export const MAX_FILTERS = 20;

/** The caps above, for callers whose schema does not check them (both grids run this). */
export function checkListSizes(filters: NonNullable<GridRequest['filters']>): void {
  if (filters.length > MAX_FILTERS) bad(`filters: at most ${MAX_FILTERS} filters`, 'filters');
  for (const [i, filter] of filters.entries()) {
    if (Array.isArray(filter?.value) && filter.value.length > MAX_LIST_VALUES) {
      bad(`filters[${i}].value: at most ${MAX_LIST_VALUES} values; narrow the selection with another filter instead`, `filters[${i}].value`);
    }
  }
}

export interface GridResult {
  total: number;
  rows: Array<Record<string, unknown>>;
}

function bad(message: string, field: string): never {
  throw new InvalidInputError(message, [{ reason: 'invalidArgument', field }]);
}

function normalise(column: GridColumn, raw: unknown, field: string): string | number {
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') bad(`filter ${field}: values must be strings or numbers`, field);
  if (column === 'cvss_score' || column === 'epss_probability') {
    const n = Number(raw);
    if (!Number.isFinite(n)) bad(`filter ${field}: '${String(raw)}' is not a number`, field);
    return n;
  }
  if (column === 'is_kev') {
    if (raw === true || raw === 'true' || raw === 1 || raw === '1') return 1;
    if (raw === false || raw === 'false' || raw === 0 || raw === '0') return 0;
    bad(`filter ${field}: expected true or false`, field);
  }
  let value = String(raw);
  const alias = ALIASES[column]?.get(value.toLowerCase());
  if (alias) value = alias;
  const allowed = ENUMS[column];
  if (allowed && !allowed.includes(value)) bad(`filter ${field}: '${value}' is not one of ${allowed.join(', ')}`, field);
  return value;
}

export async function findingGrid(repos: Repositories, principal: Principal, request: GridRequest, options: { all?: boolean } = {}): Promise<GridResult> {
  if (!Array.isArray(request.filters)) bad('filters is required: an array of {field, value, comparator} with a productId or imageId scope', 'filters');
  checkListSizes(request.filters);
  const conditions: GridCondition[] = [];
  let left: string | undefined;
  let right: string | undefined;
  for (const [i, filter] of request.filters.entries()) {
    const field = String(filter?.field ?? '');
    const comparator = String(filter?.comparator ?? 'equals') as Comparator;
    if (!COMPARATORS.includes(comparator)) bad(`filters[${i}]: unknown comparator '${comparator}'; use one of ${COMPARATORS.join(', ')}`, `filters[${i}].comparator`);
    if (field === 'compareLeftImageId' || field === 'compareRightImageId') {
      const value = Array.isArray(filter.value) ? filter.value[0] : filter.value;
      if (comparator !== 'equals' || typeof value !== 'string' || !isUlid(value)) bad(`filters[${i}]: ${field} needs comparator equals and an image id`, field);
      if (field === 'compareLeftImageId') left = value;
      else right = value;
      continue;
    }
    const column = FIELDS.get(field);
    if (!column) bad(`filters[${i}]: unknown field '${field}'; use one of ${[...FIELDS.keys(), 'compareLeftImageId', 'compareRightImageId'].join(', ')}`, `filters[${i}].field`);
    const many = comparator === 'in' || comparator === 'overlaps' || comparator === 'between';
    const rawValues = Array.isArray(filter.value) ? filter.value : filter.value === undefined ? [] : [filter.value];
    if (rawValues.length === 0) bad(`filters[${i}]: value is required`, `filters[${i}].value`);
    if (!many && rawValues.length !== 1) bad(`filters[${i}]: comparator ${comparator} takes one value`, `filters[${i}].value`);
    if (comparator === 'between' && rawValues.length !== 2) bad(`filters[${i}]: between takes [low, high]`, `filters[${i}].value`);
    if (column === 'data') {
      // identifiers: match the CVE/CWE/rule strings inside the finding document.
      const values = rawValues.map((v) => String(v));
      if (comparator === 'notContains') conditions.push({ column, comparator, values: [`"${values[0]}`] });
      else conditions.push({ column, comparator: 'contains', values: [`"${values[0]}"`] });
      continue;
    }
    const values = rawValues.map((v) => normalise(column, v, `filters[${i}].value`));
    const textual = comparator === 'contains' || comparator === 'notContains';
    conditions.push({ column, comparator, values: textual ? values.map(String) : values });
  }
  if (Boolean(left) !== Boolean(right)) bad('compare needs both compareLeftImageId (baseline) and compareRightImageId (target)', left ? 'compareRightImageId' : 'compareLeftImageId');
  const scoped = left || conditions.some((c) => c.column === 'product_id' || c.column === 'image_id');
  if (!scoped) bad('a productId or imageId filter (or a compare pair) is required to scope the grid', 'filters');

  const size = request.page?.size ?? 10;
  const num = request.page?.num ?? 1;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) bad(`page.size must be 1 to ${MAX_PAGE_SIZE}`, 'page.size');
  if (!Number.isInteger(num) || num < 0) bad('page.num must be a positive integer (1-based)', 'page.num');
  const sorts = request.sortBy === undefined ? [] : Array.isArray(request.sortBy) ? request.sortBy : [request.sortBy];
  const sort = sorts.map((s, i) => {
    const column = SORT.get(String(s?.field));
    if (!column) bad(`sortBy[${i}]: unknown field '${String(s?.field)}'`, 'sortBy.field');
    const direction = s.direction ?? 'ascend';
    if (direction !== 'ascend' && direction !== 'descend') bad(`sortBy[${i}]: direction must be ascend or descend`, 'sortBy.direction');
    return { column, direction: direction === 'ascend' ? ('asc' as const) : ('desc' as const) };
  });
  if (sort.length === 0) sort.push({ column: 'severity_rank', direction: 'desc' }, { column: 'cvss_score', direction: 'desc' });

  const { total, rows } = await queryFindingGrid(repos.db, {
    orgId: principal.orgId, conditions, sort, compare: left && right ? { left, right } : undefined,
    offset: (Math.max(1, num) - 1) * size, limit: options.all ? undefined : size,
  });
  return { total, rows: rows.map(toRow) };
}

function toRow(r: GridRow): Record<string, unknown> {
  const finding = JSON.parse(r.data) as EngineFinding;
  return {
    id: r.id, pname: r.pname, name: r.name, findingType: r.finding_type, severity: r.severity, issueStatus: r.issue_status,
    identifiers: finding.identifiers ?? [],
    ...(r.cvss_score !== null ? { cvssLatestBaseScore: Number(r.cvss_score) } : {}),
    ...(r.epss_probability !== null ? { epssProbability: Number(r.epss_probability) } : {}),
    isKev: Number(r.is_kev) === 1,
    ...(r.component_name !== null ? { componentName: r.component_name } : {}),
    ...(r.component_version !== null ? { componentVersion: r.component_version } : {}),
    productId: r.product_id, imageId: r.image_id, scanId: r.scan_id, createTime: r.create_time, fingerprint: r.fingerprint,
    ...(r.comparison ? { comparison: { status: r.comparison } } : {}),
  };
}

const CSV_COLUMNS = ['id', 'pname', 'name', 'findingType', 'severity', 'issueStatus', 'identifiers', 'cvssLatestBaseScore', 'epssProbability', 'isKev', 'componentName', 'componentVersion', 'productId', 'imageId', 'scanId', 'createTime', 'comparison'];

export function gridCsv(rows: Array<Record<string, unknown>>): string {
  const cell = (value: unknown): string => {
    let text: string;
    if (value === undefined || value === null) text = '';
    else if (Array.isArray(value)) text = value.map((v) => Object.values(v as object).join(':')).join(' ');
    else if (typeof value === 'object') text = String((value as { status?: string }).status ?? JSON.stringify(value));
    else text = String(value);
    // Formula injection guard for spreadsheet users.
    if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [CSV_COLUMNS.join(','), ...rows.map((row) => CSV_COLUMNS.map((c) => cell(row[c])).join(','))].join('\r\n') + '\r\n';
}

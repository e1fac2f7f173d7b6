// The findings grid request (API-NOTES "Findings grid"): validates filters, comparators, aliases, paging and
// sorting, checks scope, runs the store query and shapes rows.
import type { Principal } from '../auth/principal.js';
import { SEVERITIES, type EngineFinding } from '../engine/types.js';
import { CONFIDENCE_SCORES } from '../engine/vulns/confidence.js';
import { ISSUE_STATUS_ALIASES, ISSUE_STATUSES } from './findings.js';
import { csvLines, reportCsv } from '../reports/csv.js';
import type { Comparator, GridColumn, GridCondition, GridCriteria, GridRow } from '../store/finding-grid.js';
import { isUlid } from '../ids.js';
import {
  booleanValue, filterComparator, filterValues, gridError as bad, gridFilters, gridPage, gridSort, numberValue, type GridRequest, type GridResult,
} from './grid-request.js';
import type { Repositories } from '../store/repositories.js';

export type { GridRequest, GridResult };

// Look-up tables are Maps (grid-request.ts says why).
const FIELDS = new Map<string, GridColumn>(Object.entries({
  id: 'id', pname: 'pname', name: 'name', findingType: 'finding_type', severity: 'severity', issueStatus: 'issue_status',
  cvssLatestBaseScore: 'cvss_score', epssProbability: 'epss_probability', isKev: 'is_kev', componentName: 'component_name',
  componentVersion: 'component_version', productId: 'product_id', imageId: 'image_id', scanId: 'scan_id', createTime: 'create_time',
  fingerprint: 'fingerprint', identifiers: 'data', comparison: 'comparison', 'comparison.status': 'comparison',
  matchConfidence: 'match_confidence', 'matchConfidence.score': 'match_confidence', 'matchConfidence.label': 'match_confidence_label',
} satisfies Record<string, GridColumn>));
const SORT = new Map<string, GridColumn>([...FIELDS, ['severity', 'severity_rank']]);
const COMPARATORS: Comparator[] = ['equals', 'in', 'contains', 'notContains', 'between', 'overlaps'];
const ENUMS: Partial<Record<GridColumn, string[]>> = {
  severity: [...SEVERITIES],
  issue_status: ISSUE_STATUSES,
  finding_type: ['knownVulnerability', 'maliciousCode', 'dependencyVulnerability'],
  comparison: ['new', 'resolved', 'unchanged'],
  match_confidence_label: Object.keys(CONFIDENCE_SCORES),
};
const ALIASES: Partial<Record<GridColumn, ReadonlyMap<string, string>>> = {
  issue_status: ISSUE_STATUS_ALIASES,
  severity: new Map([['unspecified', 'informational'], ['info', 'informational']]),
  comparison: new Map([['found', 'new'], ['notfound', 'resolved'], ['notchanged', 'unchanged']]),
};

function normalise(column: GridColumn, raw: unknown, field: string): string | number {
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') bad(`filter ${field}: values must be strings or numbers`, field);
  if (column === 'cvss_score' || column === 'epss_probability' || column === 'match_confidence') return numberValue(raw, field);
  if (column === 'is_kev') return booleanValue(raw, field);
  let value = String(raw);
  const alias = ALIASES[column]?.get(value.toLowerCase());
  if (alias) value = alias;
  const allowed = ENUMS[column];
  if (allowed && !allowed.includes(value)) bad(`filter ${field}: '${value}' is not one of ${allowed.join(', ')}`, field);
  return value;
}

/** The store criteria of a validated request (400 for a bad one), without its page. */
function findingCriteria(principal: Principal, request: GridRequest): Omit<GridCriteria, 'offset' | 'limit'> {
  const filters = gridFilters(request, 'productId or imageId');
  const conditions: GridCondition[] = [];
  let left: string | undefined;
  let right: string | undefined;
  for (const [i, filter] of filters.entries()) {
    const field = String(filter?.field ?? '');
    const comparator = filterComparator(filter, i, COMPARATORS);
    if (field === 'compareLeftImageId' || field === 'compareRightImageId') {
      const value = Array.isArray(filter.value) ? filter.value[0] : filter.value;
      if (comparator !== 'equals' || typeof value !== 'string' || !isUlid(value)) bad(`filters[${i}]: ${field} needs comparator equals and an image id`, field);
      if (field === 'compareLeftImageId') left = value;
      else right = value;
      continue;
    }
    const column = FIELDS.get(field);
    if (!column) bad(`filters[${i}]: unknown field '${field}'; use one of ${[...FIELDS.keys(), 'compareLeftImageId', 'compareRightImageId'].join(', ')}`, `filters[${i}].field`);
    const rawValues = filterValues(filter, i, comparator);
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

  const sort = gridSort(request, SORT, [{ column: 'severity_rank', direction: 'desc' }, { column: 'cvss_score', direction: 'desc' }]);
  return { orgId: principal.orgId, conditions, sort, compare: left && right ? { left, right } : undefined };
}

export async function findingGrid(repos: Repositories, principal: Principal, request: GridRequest, options: { all?: boolean } = {}): Promise<GridResult> {
  const criteria = findingCriteria(principal, request);
  const page = gridPage(request);
  const { total, rows } = await repos.grids.findings({ ...criteria, offset: page.offset, limit: options.all ? undefined : page.limit });
  return { total, rows: rows.map(toRow) };
}

/** Rows a streamed CSV export reads at once: besides the ids, its memory is bounded by this. */
const CSV_BATCH_ROWS = 2000;

/**
 * Every matching row as CSV text in pieces (the header, then one piece per batch of rows), for a response that
 * streams: the request is validated before the first piece, so a bad one still fails with 400. The ids of the
 * matching rows are read first, in order, then the rows by id a batch at a time.
 */
export function findingGridCsv(repos: Repositories, principal: Principal, request: GridRequest): AsyncGenerator<string> {
  const criteria = findingCriteria(principal, request);
  return (async function* pieces() {
    yield reportCsv(CSV_COLUMNS, []);
    const ids = await repos.grids.findingIds(criteria);
    for (let start = 0; start < ids.length; start += CSV_BATCH_ROWS) {
      const batch = ids.slice(start, start + CSV_BATCH_ROWS);
      const { rows } = await repos.grids.findings({
        ...criteria, conditions: [...criteria.conditions, { column: 'id', comparator: 'in', values: batch }], offset: 0, withoutTotal: true,
      });
      const byId = new Map(rows.map((row) => [row.id, row]));
      // a row deleted since the ids were read is left out
      yield csvLines(batch.flatMap((id) => {
        const row = byId.get(id);
        return row ? [csvCells(toRow(row))] : [];
      }));
    }
  })();
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
    ...(r.match_confidence !== null && r.match_confidence_label !== null ? { matchConfidence: { label: r.match_confidence_label, score: Number(r.match_confidence) } } : {}),
    productId: r.product_id, imageId: r.image_id, scanId: r.scan_id, createTime: r.create_time, fingerprint: r.fingerprint,
    ...(r.comparison ? { comparison: { status: r.comparison } } : {}),
  };
}

const CSV_COLUMNS = ['id', 'pname', 'name', 'findingType', 'severity', 'issueStatus', 'identifiers', 'cvssLatestBaseScore', 'epssProbability', 'isKev', 'componentName', 'componentVersion', 'productId', 'imageId', 'scanId', 'createTime', 'comparison'];

/** A grid row's CSV cells: identifiers as `type:value` words, the comparison as its status. */
function csvCells(row: Record<string, unknown>): unknown[] {
  const text = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map((v) => Object.values(v as object).join(':')).join(' ');
    if (value !== null && typeof value === 'object') return (value as { status?: string }).status ?? JSON.stringify(value);
    return value;
  };
  return CSV_COLUMNS.map((c) => text(row[c]));
}

export function gridCsv(rows: Array<Record<string, unknown>>): string {
  return reportCsv(CSV_COLUMNS, rows.map(csvCells));
}

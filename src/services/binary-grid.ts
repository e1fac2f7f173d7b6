// POST /api/v4/grids/binaries:gridList: the binaries of the latest completed scans (hardening, unsafe function
// uses, network-facing), with the findings grid's body rules (grid-request.ts), and their CSV export.
import type { Principal } from '../auth/principal.js';
import { reportCsv } from '../reports/csv.js';
import type { BinaryDetails } from '../store/binary.repository.js';
import type { BinaryColumn, BinaryGridRow } from '../store/binary-grid.js';
import type { Comparator, GridCondition } from '../store/grid-query.js';
import {
  booleanValue, filterComparator, filterValues, gridError as bad, gridFilters, gridPage, gridSort, numberValue, type GridRequest, type GridResult,
} from './grid-request.js';
import type { Repositories } from '../store/repositories.js';

type Kind = 'id' | 'text' | 'enum' | 'flag' | 'number';

// Maps (grid-request.ts says why): request field → column, and what kind of value the column holds.
const FIELDS = new Map<string, { column: BinaryColumn; kind: Kind }>([
  ['id', { column: 'id', kind: 'id' }], ['productId', { column: 'product_id', kind: 'id' }], ['imageId', { column: 'image_id', kind: 'id' }],
  ['scanId', { column: 'scan_id', kind: 'id' }], ['path', { column: 'path', kind: 'text' }], ['arch', { column: 'arch', kind: 'text' }],
  ['format', { column: 'format', kind: 'enum' }], ['type', { column: 'type', kind: 'enum' }], ['endian', { column: 'endian', kind: 'enum' }],
  ['relro', { column: 'relro', kind: 'enum' }], ['bits', { column: 'bits', kind: 'number' }], ['unsafeUses', { column: 'unsafe_uses', kind: 'number' }],
  ['nx', { column: 'nx', kind: 'flag' }], ['pie', { column: 'pie', kind: 'flag' }], ['canary', { column: 'canary', kind: 'flag' }],
  ['fortify', { column: 'fortify', kind: 'flag' }], ['stripped', { column: 'stripped', kind: 'flag' }], ['aslr', { column: 'aslr', kind: 'flag' }],
  ['highEntropyVa', { column: 'high_entropy_va', kind: 'flag' }], ['cfg', { column: 'cfg', kind: 'flag' }], ['safeSeh', { column: 'safe_seh', kind: 'flag' }],
  ['forceIntegrity', { column: 'force_integrity', kind: 'flag' }], ['signed', { column: 'signed', kind: 'flag' }],
  ['networkFacing', { column: 'network_facing', kind: 'flag' }],
]);
const SORT = new Map([...FIELDS].map(([field, { column }]) => [field, column]));
const COMPARATORS: Record<Kind, Comparator[]> = {
  id: ['equals', 'in'],
  text: ['equals', 'in', 'contains', 'notContains'],
  enum: ['equals', 'in'],
  flag: ['equals'],
  number: ['equals', 'in', 'between'],
};
const ENUMS = new Map<BinaryColumn, string[]>([
  ['format', ['elf', 'pe', 'te']], ['type', ['executable', 'shared-object', 'kernel']], ['endian', ['le', 'be']], ['relro', ['full', 'partial', 'none']],
]);

function condition(filter: NonNullable<GridRequest['filters']>[number], i: number): GridCondition<BinaryColumn> {
  const field = String(filter?.field ?? '');
  const known = FIELDS.get(field);
  if (!known) bad(`filters[${i}]: unknown field '${field}'; use one of ${[...FIELDS.keys()].join(', ')}`, `filters[${i}].field`);
  const { column, kind } = known;
  const comparator = filterComparator(filter, i, COMPARATORS[kind]);
  const where = `filters[${i}].value`;
  const values = filterValues(filter, i, comparator).map((raw): string | number => {
    if (kind === 'flag') return booleanValue(raw, where);
    if (kind === 'number') return numberValue(raw, where);
    if (typeof raw !== 'string' && typeof raw !== 'number') bad(`filter ${where}: values must be strings`, where);
    const value = String(raw);
    const allowed = ENUMS.get(column);
    if (allowed && !allowed.includes(value)) bad(`filter ${where}: '${value}' is not one of ${allowed.join(', ')}`, where);
    return value;
  });
  return { column, comparator, values };
}

export async function binaryGrid(repos: Repositories, principal: Principal, request: GridRequest, options: { all?: boolean } = {}): Promise<GridResult> {
  const conditions = gridFilters(request, 'productId or imageId').map(condition);
  if (!conditions.some((c) => c.column === 'product_id' || c.column === 'image_id')) bad('a productId or imageId filter is required to scope the grid', 'filters');
  const page = gridPage(request);
  const sort = gridSort(request, SORT, [{ column: 'unsafe_uses', direction: 'desc' }, { column: 'path', direction: 'asc' }]);
  const { total, rows } = await repos.grids.binaries({
    orgId: principal.orgId, conditions, sort, offset: page.offset, limit: options.all ? undefined : page.limit,
  });
  return { total, rows: rows.map(toRow) };
}

const flag = (value: number | null) => (value === null ? undefined : Number(value) === 1);

function toRow(r: BinaryGridRow): Record<string, unknown> {
  const details = JSON.parse(r.data) as BinaryDetails;
  const row: Record<string, unknown> = {
    id: r.id, path: r.path, format: r.format, type: r.type, arch: r.arch, bits: Number(r.bits), endian: r.endian,
    nx: flag(r.nx), pie: flag(r.pie), relro: r.relro ?? undefined, canary: flag(r.canary), fortify: flag(r.fortify), stripped: flag(r.stripped),
    rpath: details.rpath ?? undefined, runpath: details.runpath ?? undefined,
    aslr: flag(r.aslr), highEntropyVa: flag(r.high_entropy_va), cfg: flag(r.cfg), safeSeh: flag(r.safe_seh),
    forceIntegrity: flag(r.force_integrity), signed: flag(r.signed),
    unsafeUses: Number(r.unsafe_uses), callSitesDecoded: details.callSitesDecoded,
    unsafeFunctions: [...new Set(details.unsafeFunctions.map((f) => f.name))],
    unsafeFunctionCalls: details.unsafeFunctions,
    networkFacing: Number(r.network_facing) === 1, productId: r.product_id, imageId: r.image_id, scanId: r.scan_id,
  };
  // Flags that do not apply to the format are absent, not false.
  return Object.fromEntries(Object.entries(row).filter(([, value]) => value !== undefined));
}

export const BINARY_CSV_COLUMNS = [
  'id', 'path', 'format', 'type', 'arch', 'bits', 'endian', 'nx', 'pie', 'relro', 'canary', 'fortify', 'stripped', 'rpath', 'runpath',
  'aslr', 'highEntropyVa', 'cfg', 'safeSeh', 'forceIntegrity', 'signed', 'unsafeUses', 'unsafeFunctions', 'networkFacing', 'productId', 'imageId', 'scanId',
] as const;

export function binaryGridCsv(rows: Array<Record<string, unknown>>): string {
  const text = (value: unknown) => (Array.isArray(value) ? value.join(' ') : value);
  return reportCsv(BINARY_CSV_COLUMNS, rows.map((row) => BINARY_CSV_COLUMNS.map((c) => text(row[c]))));
}

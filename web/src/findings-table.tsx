// The image's findings with TanStack Table in manual mode: filters, sort and paging are sent to the server's
// findings grid; the table only renders the page it gets. A column chooser, and CSV export of every match.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef, type SortingState, type VisibilityState } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { fetchBlob, saveBlob } from './api.js';
import { findingGrid, type FindingRow, type GridFilter } from './queries.js';
import { CONFIDENCE_LABELS, labelOf } from './labels.js';
import { Link } from './router.js';
import { ErrorNotice, Kev, SEVERITIES, Severity } from './ui.js';

const TYPES = ['knownVulnerability', 'dependencyVulnerability', 'maliciousCode'];
const STATUSES = ['new', 'inProgress', 'remediated', 'rejected'];
const PAGE_SIZE = 25;

export interface FindingFilters {
  type: string;
  severity: string;
  status: string;
  kev: boolean;
  minEpss: string;
  component: string;
  /** A matchConfidence label (kernel-code-not-built shows the kernel CVEs whose code is not built). */
  confidence: string;
}

const NO_FILTERS: FindingFilters = { type: '', severity: '', status: '', kev: false, minEpss: '', component: '', confidence: '' };

export function gridFilters(scope: GridFilter[], f: FindingFilters): GridFilter[] {
  const filters = [...scope];
  if (f.type) filters.push({ field: 'findingType', value: f.type });
  if (f.severity) filters.push({ field: 'severity', value: f.severity });
  if (f.status) filters.push({ field: 'issueStatus', value: f.status });
  if (f.kev) filters.push({ field: 'isKev', value: true });
  if (f.minEpss !== '' && Number.isFinite(Number(f.minEpss))) filters.push({ field: 'epssProbability', comparator: 'between', value: [Number(f.minEpss), 1] });
  if (f.confidence) filters.push({ field: 'matchConfidence.label', value: f.confidence, comparator: 'equals' });
  if (f.component.trim()) filters.push({ field: 'componentName', comparator: 'contains', value: f.component.trim() });
  return filters;
}

export function FindingsTable({ productId, scope, title, csvName, extraColumns = [] }: { productId: string; scope: GridFilter[]; title: string; csvName: string; extraColumns?: ColumnDef<FindingRow>[] }) {
  const [filters, setFilters] = useState<FindingFilters>(NO_FILTERS);
  const [sorting, setSorting] = useState<SortingState>([]);
  const [page, setPage] = useState(0);
  const [visibility, setVisibility] = useState<VisibilityState>({ fingerprint: false, createTime: false });
  const [exportError, setExportError] = useState<unknown>();
  const body = { filters: gridFilters(scope, filters), page: { num: page, size: PAGE_SIZE }, ...(sorting.length ? { sortBy: sorting.map((s) => ({ field: s.id, direction: s.desc ? 'desc' : 'asc' })) } : {}) };
  const result = useQuery({ queryKey: ['findings-grid', body], queryFn: () => findingGrid(body), placeholderData: keepPreviousData });

  const columns = useMemo<ColumnDef<FindingRow>[]>(() => [
    { id: 'severity', header: 'Severity', accessorKey: 'severity', cell: (c) => <Severity value={c.row.original.severity} /> },
    { id: 'name', header: 'Finding', accessorKey: 'name', cell: (c) => <Link href={`/products/${productId}/findings/${c.row.original.id}`}>{c.row.original.name}</Link> },
    { id: 'findingType', header: 'Type', accessorKey: 'findingType', cell: (c) => labelOf(String(c.getValue())) },
    { id: 'componentName', header: 'Component', accessorFn: (r) => [r.componentName, r.componentVersion].filter(Boolean).join(' ') },
    { id: 'cvssLatestBaseScore', header: 'CVSS', accessorFn: (r) => r.cvssLatestBaseScore?.toFixed(1) ?? '' },
    { id: 'epssProbability', header: 'EPSS', accessorFn: (r) => (r.epssProbability !== undefined ? `${(r.epssProbability * 100).toFixed(1)}%` : '') },
    { id: 'matchConfidence', header: 'Match', accessorFn: (r) => (r.matchConfidence ? `${CONFIDENCE_LABELS[r.matchConfidence.label] ?? r.matchConfidence.label} (${r.matchConfidence.score.toFixed(2)})` : '') },
    { id: 'isKev', header: 'KEV', accessorKey: 'isKev', cell: (c) => <Kev value={c.row.original.isKev} /> },
    { id: 'issueStatus', header: 'Status', accessorKey: 'issueStatus', cell: (c) => labelOf(String(c.getValue())) },
    ...extraColumns,
    { id: 'fingerprint', header: 'Fingerprint', accessorKey: 'fingerprint' },
    { id: 'createTime', header: 'Found', accessorKey: 'createTime' },
  ], [productId, extraColumns]);

  const table = useReactTable({
    data: result.data?.rows ?? [], columns, getCoreRowModel: getCoreRowModel(),
    manualSorting: true, manualPagination: true, manualFiltering: true, rowCount: result.data?.total ?? 0,
    state: { sorting, columnVisibility: visibility, pagination: { pageIndex: page, pageSize: PAGE_SIZE } },
    onSortingChange: (update) => { setSorting(update); setPage(0); },
    onColumnVisibilityChange: setVisibility,
  });
  const set = (patch: Partial<FindingFilters>) => { setFilters({ ...filters, ...patch }); setPage(0); };
  const total = result.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));

  const exportCsv = async () => {
    setExportError(undefined);
    try {
      const blob = await fetchBlob('/api/v4/grids/findings:gridList?contentType=csv', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ filters: body.filters, ...(body.sortBy ? { sortBy: body.sortBy } : {}) }) });
      saveBlob(blob, csvName);
    } catch (error) {
      setExportError(error);
    }
  };

  return (
    <section aria-labelledby="findings-title">
      <h2 id="findings-title">{title}</h2>
      <fieldset className="filters">
        <legend className="sr-only">Filter findings</legend>
        <label>Type <select value={filters.type} onChange={(e) => set({ type: e.target.value })}><option value="">any</option>{TYPES.map((t) => <option key={t} value={t}>{labelOf(t)}</option>)}</select></label>
        <label>Severity <select value={filters.severity} onChange={(e) => set({ severity: e.target.value })}><option value="">any</option>{SEVERITIES.map((s) => <option key={s}>{s}</option>)}</select></label>
        <label>Status <select value={filters.status} onChange={(e) => set({ status: e.target.value })}><option value="">any</option>{STATUSES.map((s) => <option key={s} value={s}>{labelOf(s)}</option>)}</select></label>
        <label>Minimum EPSS <input type="number" min={0} max={1} step={0.01} value={filters.minEpss} onChange={(e) => set({ minEpss: e.target.value })} /></label>
        <label>Match <select value={filters.confidence} onChange={(e) => set({ confidence: e.target.value })}><option value="">any</option>{Object.entries(CONFIDENCE_LABELS).map(([id, words]) => <option key={id} value={id}>{words}</option>)}</select></label>
        <label>Component <input type="search" value={filters.component} onChange={(e) => set({ component: e.target.value })} /></label>
        <label className="check"><input type="checkbox" checked={filters.kev} onChange={(e) => set({ kev: e.target.checked })} /> KEV only</label>
      </fieldset>
      <div className="table-tools">
        <details className="column-chooser">
          <summary>Columns</summary>
          <div>{table.getAllLeafColumns().map((column) => (
            <label key={column.id} className="check"><input type="checkbox" checked={column.getIsVisible()} onChange={column.getToggleVisibilityHandler()} /> {String(column.columnDef.header)}</label>
          ))}</div>
        </details>
        <button type="button" onClick={() => void exportCsv()}>Export CSV</button>
        <span className="muted" role="status" aria-live="polite">{result.isFetching ? 'Loading…' : `${total} finding${total === 1 ? '' : 's'}`}</span>
      </div>
      {!!exportError && <ErrorNotice error={exportError} />}
      {result.error && <ErrorNotice error={result.error} action="Change the filters and try again." />}
      <div className="table-wrap" tabIndex={0}>
        <table className="findings">
          <thead>
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => {
                  const sorted = header.column.getIsSorted();
                  return (
                    <th key={header.id} scope="col" aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}>
                      <button type="button" className="sort" onClick={header.column.getToggleSortingHandler()}>
                        {flexRender(header.column.columnDef.header, header.getContext())}{sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ''}
                      </button>
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody>
            {table.getRowModel().rows.map((row) => (
              <tr key={row.id}>{row.getVisibleCells().map((cell) => <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>)}</tr>
            ))}
            {result.data && total === 0 && <tr><td colSpan={table.getVisibleLeafColumns().length} className="muted">No finding matches these filters.</td></tr>}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Findings pages">
        <button type="button" onClick={() => setPage(page - 1)} disabled={page === 0}>Previous</button>
        <span>Page {page + 1} of {pages}</span>
        <button type="button" onClick={() => setPage(page + 1)} disabled={page + 1 >= pages}>Next</button>
      </nav>
    </section>
  );
}

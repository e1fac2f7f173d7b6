// Rendering a report of an image's latest completed scan: the generator by id (src/reports), its input from
// the stored rows and result document, and the file name it is downloaded as. The api sends what this returns.
import type { Principal } from '../auth/principal.js';
import { NotReadyError } from '../errors.js';
import type { ReportInput } from '../reports/report.js';
import type { BlobStore } from '../store/blob-store.js';
import type { Image } from '../store/image.repository.js';
import type { Product } from '../store/product.repository.js';
import type { Repositories } from '../store/repositories.js';
import { findingGrid, type GridRequest } from './finding-grid.js';
import { latestDoneScan, loadReportInput, type ReportOptions } from './report-input.js';

export interface RenderedReport {
  mediaType: string;
  /** The image's own name (any script) and the report id; path separators and control characters become '_'. */
  fileName: string;
  document: string | Uint8Array;
}

type Subject = { product: Product; image: Image };

export async function renderReport(
  repos: Repositories, blobs: BlobStore, subject: Subject, reportId: string,
  narrow?: (input: ReportInput) => Promise<void>, options: ReportOptions = {},
): Promise<RenderedReport> {
  // The generators (PDF fonts, the CycloneDX library, XML builders) load at the first report, not at start: they
  // are about a third of the service's idle memory.
  const { findReport } = await import('../reports/index.js');
  const generator = findReport(reportId);
  if (!generator) throw new NotReadyError(`the ${reportId} report is not available in this version of Firmscope`, [{ reason: 'reportNotAvailable' }]);
  const scan = await latestDoneScan(repos, subject.image);
  const input = await loadReportInput(repos, blobs, { ...subject, scan }, options);
  if (narrow) await narrow(input);
  const document = await generator.generate(input);
  const name = `${subject.image.name}-${generator.id}`.replace(/[\u0000-\u001f\u007f/\\]+/g, '_');
  return { mediaType: generator.mediaType, fileName: `${name}.${extensionOf(generator.mediaType)}`, document };
}

/**
 * The findings report in a format (pdf, json, csv, html; sarif is its own generator), its baseline image and
 * sections in `options`; a grid query's filters narrow it to the matching findings of this image.
 */
export async function renderFindingsReport(
  repos: Repositories, blobs: BlobStore, principal: Principal, subject: Subject, format: string, filters?: GridRequest['filters'], options: ReportOptions = {},
): Promise<RenderedReport> {
  const reportId = format === 'sarif' ? 'sarif' : `findings-${format}`;
  if (!filters?.length) return renderReport(repos, blobs, subject, reportId, undefined, options);
  return renderReport(repos, blobs, subject, reportId, async (input) => {
    const { rows } = await findingGrid(repos, principal, { filters: [...filters, { field: 'imageId', value: subject.image.id, comparator: 'equals' }] }, { all: true });
    const keep = new Set(rows.map((r) => r.id));
    input.findings = input.findings?.filter((f) => keep.has(f.id));
  }, options);
}

function extensionOf(mediaType: string): string {
  if (mediaType.includes('pdf')) return 'pdf';
  if (mediaType.includes('csv')) return 'csv';
  if (mediaType.includes('xml')) return 'xml';
  if (mediaType.includes('html')) return 'html';
  return 'json';
}

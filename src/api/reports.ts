// Report endpoints: each maps to a generator id in src/reports. A scan that is not done → 422; a generator
// this version does not have → 422 saying so.
import { Type, type FastifyPluginAsyncTypebox, type TSchema } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { principalOf } from '../auth/authenticate.js';
import { findReport } from '../reports/index.js';
import { requireImage } from '../services/access.js';
import { InvalidInputError, NotReadyError } from '../errors.js';
import { findingGrid, type GridRequest } from '../services/finding-grid.js';
import type { Repositories } from '../store/repositories.js';
import { FINDINGS_SECTIONS, latestDoneScan, loadReportInput, type FindingsSection, type ReportOptions } from '../services/report-input.js';
import type { BlobStore } from '../store/blob-store.js';
import type { Image } from '../store/image.repository.js';
import type { Product } from '../store/product.repository.js';
import { attachmentDisposition } from './content-disposition.js';
import type { ApiDeps } from './deps.js';
import { errorResponses, Ulid } from './schemas.js';

const ImageParams = Type.Object({ productId: Ulid('Product id'), imageId: Ulid('Image id') });
const Document = { 200: Type.Unknown({ description: 'The report document (JSON, XML, PDF or CSV)' }), ...errorResponses(422) };

export async function sendReport(
  repos: Repositories, blobs: BlobStore, reply: FastifyReply, subject: { product: Product; image: Image }, reportId: string,
  filter?: (input: Awaited<ReturnType<typeof loadReportInput>>) => Promise<void>, options: ReportOptions = {},
): Promise<FastifyReply> {
  const generator = findReport(reportId);
  if (!generator) throw new NotReadyError(`the ${reportId} report is not available in this version of Firmscope`, [{ reason: 'reportNotAvailable' }]);
  const scan = await latestDoneScan(repos, subject.image);
  const input = await loadReportInput(repos, blobs, { ...subject, scan }, options);
  if (filter) await filter(input);
  const document = await generator.generate(input);
  const extension = extensionOf(generator.mediaType);
  // The image's own name (any script); path separators and control characters become '_'.
  const name = `${subject.image.name}-${generator.id}`.replace(/[\u0000-\u001f\u007f/\\]+/g, '_');
  return reply
    .header('content-type', generator.mediaType)
    .header('content-disposition', attachmentDisposition(`${name}.${extension}`))
    .serializer((payload: unknown) => payload as string)
    .send(document);
}

function extensionOf(mediaType: string): string {
  if (mediaType.includes('pdf')) return 'pdf';
  if (mediaType.includes('csv')) return 'csv';
  if (mediaType.includes('xml')) return 'xml';
  if (mediaType.includes('html')) return 'html';
  return 'json';
}

export function sendFindingsReport(
  repos: Repositories, blobs: BlobStore, reply: FastifyReply, request: { product: Product; image: Image; format: 'pdf' | 'json' | 'csv' | 'html' }, options: ReportOptions = {},
) {
  return sendReport(repos, blobs, reply, request, `findings-${request.format}`, undefined, options);
}

/** The findings PDF and HTML options of a query: the baseline image and a comma-separated list of sections. */
const ReportOptionsQuery = {
  baselineImageId: Type.Optional(Ulid('The image to compare with (default: the product\'s previous image with a completed scan)')),
  sections: Type.Optional(Type.String({ description: `Comma-separated subset of the PDF and HTML sections: ${FINDINGS_SECTIONS.join(', ')} (default: all; the cover is always there)` })),
};

function reportOptions(query: { baselineImageId?: string; sections?: string }): ReportOptions {
  const options: ReportOptions = {};
  if (query.baselineImageId) options.baselineImageId = query.baselineImageId;
  if (query.sections !== undefined) {
    const sections = query.sections.split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = sections.find((s) => !(FINDINGS_SECTIONS as readonly string[]).includes(s));
    if (unknown !== undefined || !sections.length) {
      throw new InvalidInputError(`sections must be a comma-separated list of: ${FINDINGS_SECTIONS.join(', ')}`, [{ reason: 'invalid', field: 'sections' }]);
    }
    options.sections = sections as FindingsSection[];
  }
  return options;
}

export const reportRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { repos, blobs }) => {
  const base = '/api/v4/products/:productId/images/:imageId';
  const simple = (path: string, summary: string, pick: (query: Record<string, string | undefined>) => string, querystring: TSchema = Type.Object({ contentType: Type.Optional(Type.String()) })) =>
    app.get(`${base}/${path}`, {
      config: { permission: 'reports.view' },
      schema: { tags: ['reports'], summary, params: ImageParams, querystring, response: Document },
    }, async (request, reply) => {
      const subject = await requireImage(repos, principalOf(request), request.params.productId, request.params.imageId);
      return sendReport(repos, blobs, reply, subject, pick(request.query as Record<string, string | undefined>));
    });

  const contentType = (allowed: string[], fallback?: string) => (query: Record<string, string | undefined>): string => {
    const value = query.contentType ?? fallback;
    if (!value || !allowed.includes(value)) {
      throw new InvalidInputError(`contentType must be one of: ${allowed.join(', ')}`, [{ reason: 'invalid', field: 'contentType' }]);
    }
    return value;
  };

  simple('sbomReport::cycloneDX', 'SBOM, CycloneDX 1.6 (contentType=json; xml when available)', (q) =>
    contentType(['json', 'xml'], 'json')(q) === 'xml' ? 'sbom-cyclonedx-xml' : 'sbom-cyclonedx');
  simple('sbomReport::SPDX', 'SBOM, SPDX 2.3 JSON (contentType=json)', (q) => (contentType(['json'], 'json')(q), 'sbom-spdx'));
  simple('cbomReport::cycloneDX', 'Cryptographic bill of materials, CycloneDX 1.6', (q) => (contentType(['json'], 'json')(q), 'cbom-cyclonedx'));
  simple('vexReport::openVEX', 'VEX from issue statuses, OpenVEX', () => 'vex-openvex');
  simple('vexReport::cycloneDX', 'VEX from issue statuses, CycloneDX', () => 'vex-cyclonedx');
  simple('cryptographicMaterialsReport', 'Post-quantum cryptography compliance report (mode=pqc-compliance, contentType=json|pdf)', (q) => {
    if (q.mode !== 'pqc-compliance') throw new InvalidInputError('mode must be pqc-compliance', [{ reason: 'invalid', field: 'mode' }]);
    return `pqc-${contentType(['json', 'pdf'])(q)}`;
  }, Type.Object({ mode: Type.String(), contentType: Type.String() }));
  app.get(`${base}/findingsReport::pdf`, {
    config: { permission: 'reports.view' },
    schema: { tags: ['reports'], summary: 'Findings report, PDF', params: ImageParams, querystring: Type.Object(ReportOptionsQuery), response: Document },
  }, async (request, reply) => {
    const subject = await requireImage(repos, principalOf(request), request.params.productId, request.params.imageId);
    return sendFindingsReport(repos, blobs, reply, { ...subject, format: 'pdf' }, reportOptions(request.query));
  });

  const FindingsQuery = Type.Object({
    contentType: Type.Optional(Type.Union([Type.Literal('pdf'), Type.Literal('json'), Type.Literal('csv'), Type.Literal('html')])),
    ...ReportOptionsQuery,
  });
  for (const [path, summary, fixed] of [
    ['findingsReport::json', 'Findings report, JSON (body: a grid query or {})', 'json'],
    ['findingsReport::download', 'Findings report download (contentType=pdf|json|csv|html; body: a grid query or {})', undefined],
  ] as const) {
    app.post(`${base}/${path}`, {
      config: { permission: 'reports.view' },
      schema: {
        tags: ['reports'], summary, params: ImageParams, querystring: FindingsQuery,
        body: Type.Optional(Type.Object({ filters: Type.Optional(Type.Array(Type.Unknown())), sortBy: Type.Optional(Type.Unknown()) })),
        response: Document,
      },
    }, async (request, reply) => {
      const principal = principalOf(request);
      const subject = await requireImage(repos, principal, request.params.productId, request.params.imageId);
      const format = fixed ?? request.query.contentType ?? 'json';
      const filters = request.body?.filters as GridRequest['filters'] | undefined;
      const options = reportOptions(request.query);
      if (!filters?.length) return sendFindingsReport(repos, blobs, reply, { ...subject, format }, options);
      // A grid query narrows the report to the matching findings of this image.
      return sendReport(repos, blobs, reply, subject, `findings-${format}`, async (input) => {
        const { rows } = await findingGrid(repos, principal, { filters: [...filters, { field: 'imageId', value: subject.image.id, comparator: 'equals' }] }, { all: true });
        const keep = new Set(rows.map((r) => r.id));
        input.findings = input.findings?.filter((f) => keep.has(f.id));
      }, options);
    });
  }
};

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
import { latestDoneScan, loadReportInput } from '../services/report-input.js';
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
  filter?: (input: Awaited<ReturnType<typeof loadReportInput>>) => Promise<void>,
): Promise<FastifyReply> {
  const generator = findReport(reportId);
  if (!generator) throw new NotReadyError(`the ${reportId} report is not available in this version of Firmscope`, [{ reason: 'reportNotAvailable' }]);
  const scan = await latestDoneScan(repos, subject.image);
  const input = await loadReportInput(repos, blobs, { ...subject, scan });
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
  return 'json';
}

type FindingsFormat = 'pdf' | 'json' | 'csv' | 'sarif';
/** The generator of a findings report format: SARIF is its own generator, the others are `findings-*`. */
const findingsReportId = (format: FindingsFormat): string => (format === 'sarif' ? 'sarif' : `findings-${format}`);

export function sendFindingsReport(repos: Repositories, blobs: BlobStore, reply: FastifyReply, request: { product: Product; image: Image; format: FindingsFormat }) {
  return sendReport(repos, blobs, reply, request, findingsReportId(request.format));
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

  simple('sbomReport::cycloneDX', 'SBOM, CycloneDX 1.6 (contentType=json|xml)', (q) =>
    contentType(['json', 'xml'], 'json')(q) === 'xml' ? 'sbom-cyclonedx-xml' : 'sbom-cyclonedx');
  simple('sbomReport::SPDX', 'SBOM, SPDX 2.3 JSON (contentType=json)', (q) => (contentType(['json'], 'json')(q), 'sbom-spdx'));
  simple('cbomReport::cycloneDX', 'Cryptographic bill of materials, CycloneDX 1.6', (q) => (contentType(['json'], 'json')(q), 'cbom-cyclonedx'));
  simple('vexReport::openVEX', 'VEX from issue statuses, OpenVEX', () => 'vex-openvex');
  simple('vexReport::cycloneDX', 'VEX from issue statuses, CycloneDX', () => 'vex-cyclonedx');
  simple('cryptographicMaterialsReport', 'Post-quantum cryptography compliance report (mode=pqc-compliance, contentType=json|pdf)', (q) => {
    if (q.mode !== 'pqc-compliance') throw new InvalidInputError('mode must be pqc-compliance', [{ reason: 'invalid', field: 'mode' }]);
    return `pqc-${contentType(['json', 'pdf'])(q)}`;
  }, Type.Object({ mode: Type.String(), contentType: Type.String() }));
  simple('findingsReport::pdf', 'Findings report, PDF', () => 'findings-pdf');

  const FindingsQuery = Type.Object({ contentType: Type.Optional(Type.Union([Type.Literal('pdf'), Type.Literal('json'), Type.Literal('csv'), Type.Literal('sarif')])) });
  for (const [path, summary, fixed] of [
    ['findingsReport::json', 'Findings report, JSON (body: a grid query or {})', 'json'],
    ['findingsReport::sarif', 'Findings report, SARIF 2.1.0 for code-scanning services (body: a grid query or {})', 'sarif'],
    ['findingsReport::download', 'Findings report download (contentType=pdf|json|csv|sarif; body: a grid query or {})', undefined],
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
      if (!filters?.length) return sendFindingsReport(repos, blobs, reply, { ...subject, format });
      // A grid query narrows the report to the matching findings of this image.
      return sendReport(repos, blobs, reply, subject, findingsReportId(format), async (input) => {
        const { rows } = await findingGrid(repos, principal, { filters: [...filters, { field: 'imageId', value: subject.image.id, comparator: 'equals' }] }, { all: true });
        const keep = new Set(rows.map((r) => r.id));
        input.findings = input.findings?.filter((f) => keep.has(f.id));
      });
    });
  }
};

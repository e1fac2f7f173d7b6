// Report endpoints: each maps to a generator id in src/reports. A scan that is not done → 422; a generator
// this version does not have → 422 saying so.
import { Type, type FastifyPluginAsyncTypebox, type TSchema } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { principalOf } from '../auth/authenticate.js';
import { requireImage } from '../services/access.js';
import { InvalidInputError } from '../errors.js';
import type { GridRequest } from '../services/finding-grid.js';
import { FINDINGS_SECTIONS, type FindingsSection, type ReportOptions } from '../services/report-input.js';
import { renderFindingsReport, renderReport, type RenderedReport } from '../services/reports.js';
import { attachmentDisposition } from './content-disposition.js';
import type { ApiDeps } from './deps.js';
import { errorResponses, Ulid } from './schemas.js';

const ImageParams = Type.Object({ productId: Ulid('Product id'), imageId: Ulid('Image id') });
const Document = { 200: Type.Unknown({ description: 'The report document (JSON, XML, PDF or CSV)' }), ...errorResponses(422) };

/** Sends a rendered report as a download. */
export function sendReport(reply: FastifyReply, report: RenderedReport): FastifyReply {
  return reply
    .header('content-type', report.mediaType)
    .header('content-disposition', attachmentDisposition(report.fileName))
    .serializer((payload: unknown) => payload as string)
    .send(report.document);
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
      return sendReport(reply, await renderReport(repos, blobs, subject, pick(request.query as Record<string, string | undefined>)));
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
  app.get(`${base}/findingsReport::pdf`, {
    config: { permission: 'reports.view' },
    schema: { tags: ['reports'], summary: 'Findings report, PDF', params: ImageParams, querystring: Type.Object(ReportOptionsQuery), response: Document },
  }, async (request, reply) => {
    const subject = await requireImage(repos, principalOf(request), request.params.productId, request.params.imageId);
    return sendReport(reply, await renderFindingsReport(repos, blobs, principalOf(request), subject, 'pdf', undefined, reportOptions(request.query)));
  });

  const FindingsQuery = Type.Object({
    contentType: Type.Optional(Type.Union([Type.Literal('pdf'), Type.Literal('json'), Type.Literal('csv'), Type.Literal('html'), Type.Literal('sarif')])),
    ...ReportOptionsQuery,
  });
  for (const [path, summary, fixed] of [
    ['findingsReport::json', 'Findings report, JSON (body: a grid query or {})', 'json'],
    ['findingsReport::sarif', 'Findings report, SARIF 2.1.0 for code-scanning services (body: a grid query or {})', 'sarif'],
    ['findingsReport::download', 'Findings report download (contentType=pdf|json|csv|html|sarif; body: a grid query or {})', undefined],
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
      return sendReport(reply, await renderFindingsReport(repos, blobs, principal, subject, format, filters, reportOptions(request.query)));
    });
  }
};

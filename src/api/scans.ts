// Scans of an image: list, get, create, create state (enforced transitions; cancel really stops the work),
// the components a finished scan found and its problems (paged, filtered by level). A scan carries its summary
// once done (outcome-schemas.ts: the outcome rules).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/authenticate.js';
import { requireImage, requireScan } from '../services/access.js';
import { listScanProblems } from '../services/scan-problems.js';
import { createScan, listScans, scanComponents, scanStateHistory, setScanState } from '../services/scans.js';
import type { ApiDeps } from './deps.js';
import { parseBool } from './images.js';
import { LEVEL_RULES, OUTCOME_RULES, ProblemSchema } from './outcome-schemas.js';
import { scanOut } from './presenters.js';
import { errorResponses, Ulid } from './schemas.js';

const ImageParams = Type.Object({ productId: Ulid('Product id'), imageId: Ulid('Image id') });
const ScanParams = Type.Object({ productId: Ulid('Product id'), imageId: Ulid('Image id'), scanId: Ulid('Scan id') });
const StatusQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Boolean(), Type.String()], { description: 'true: reported states (in_progress, completed, failed, cancelled); otherwise new|running|done|failed|cancelled' })),
});
const ComponentSchema = Type.Object({
  id: Type.String(), name: Type.String(), version: Type.Optional(Type.String()), cpe: Type.Optional(Type.String()), purl: Type.Optional(Type.String()),
  type: Type.String(), supplier: Type.Optional(Type.String()), licenses: Type.Optional(Type.Array(Type.String())), paths: Type.Array(Type.String()),
  hashes: Type.Optional(Type.Object({ sha256: Type.String(), sha1: Type.String(), md5: Type.String() })),
  evidence: Type.Array(Type.Object({ path: Type.String(), method: Type.String(), match: Type.Optional(Type.String()), offset: Type.Optional(Type.Integer()) })),
  confidence: Type.Optional(Type.Number()), foundBy: Type.Optional(Type.Array(Type.String())),
});

export const scanRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { repos, baseUrl }) => {
  app.get('/api/v4/products/:productId/images/:imageId/scans', {
    config: { permission: 'scans.view' },
    schema: {
      tags: ['scans'], summary: 'List scans of an image', description: OUTCOME_RULES, params: ImageParams, querystring: StatusQuery,
      response: { 200: Type.Object({ scans: Type.Array(Type.Ref('Scan')), status: Type.Optional(Type.String()) }), ...errorResponses() },
    },
  }, async (request) => {
    const reported = parseBool(request.query.status, 'status', false);
    const scans = await listScans(repos, principalOf(request), request.params.productId, request.params.imageId);
    if (reported && scans.length === 0) return { scans: [], status: 'no_scans' };
    return { scans: scans.map((s) => scanOut(s, reported)) };
  });

  app.get('/api/v4/products/:productId/images/:imageId/scans/:scanId', {
    config: { permission: 'scans.view' },
    schema: {
      tags: ['scans'], summary: 'Get a scan (with its summary once done)', description: OUTCOME_RULES, params: ScanParams, querystring: StatusQuery,
      response: { 200: Type.Ref('Scan'), ...errorResponses() },
    },
  }, async (request) => {
    const { scan } = await requireScan(repos, principalOf(request), request.params.productId, request.params.imageId, request.params.scanId);
    return scanOut(scan, parseBool(request.query.status, 'status', false));
  });

  app.post('/api/v4/products/:productId/images/:imageId/scans', {
    config: { permission: 'scans.create' },
    schema: { tags: ['scans'], summary: 'Start a new scan of the image', params: ImageParams, response: { 201: Type.Ref('Scan'), ...errorResponses() } },
  }, async (request, reply) => {
    const principal = principalOf(request);
    const { image } = await requireImage(repos, principal, request.params.productId, request.params.imageId);
    return reply.status(201).send(scanOut(await createScan(repos, image, principal.userId), false));
  });

  app.get('/api/v4/products/:productId/images/:imageId/scans/:scanId/states', {
    config: { permission: 'scans.view' },
    schema: {
      tags: ['scans'], summary: 'The scan\'s state history, oldest first (new, running, then done, failed or cancelled; a retried scan goes back to new)',
      description: 'Each move with its time and, for a failure or a request, its message. The time of each analysis phase is in the scan summary (`summary.phases`, milliseconds) once it is done.',
      params: ScanParams,
      response: {
        200: Type.Object({
          states: Type.Array(Type.Object({
            id: Type.String(), type: Type.String({ description: 'new|running|done|failed|cancelled' }), createTime: Type.String(),
            message: Type.Optional(Type.String()), byRequest: Type.Boolean({ description: 'true when a person or client asked for the move; false for the worker\'s own moves' }),
          })),
        }),
        ...errorResponses(),
      },
    },
  }, async (request) => {
    const { scan } = await requireScan(repos, principalOf(request), request.params.productId, request.params.imageId, request.params.scanId);
    const states = await scanStateHistory(repos, scan);
    return { states: states.map((s) => ({ id: s.id, type: s.type, createTime: s.createTime, ...(s.message ? { message: s.message } : {}), byRequest: s.authorId !== null })) };
  });

  app.post('/api/v4/products/:productId/images/:imageId/scans/:scanId/states', {
    config: { permission: 'scans.update' },
    schema: {
      tags: ['scans'], summary: 'Move the scan to a new state (cancelled stops the analysis)', params: ScanParams,
      body: Type.Object({ type: Type.Union(['new', 'running', 'failed', 'done', 'cancelled'].map((t) => Type.Literal(t))) }, { additionalProperties: false }),
      response: { 200: Type.Ref('Scan'), ...errorResponses(409, 415) },
    },
  }, async (request) => {
    const principal = principalOf(request);
    const { scan } = await requireScan(repos, principal, request.params.productId, request.params.imageId, request.params.scanId);
    return scanOut(await setScanState(repos, principal, scan, request.body.type as 'new', baseUrl), false);
  });

  app.get('/api/v4/products/:productId/images/:imageId/scans/:scanId/components', {
    config: { permission: 'scans.view' },
    schema: {
      tags: ['scans'], summary: 'Software components the scan found', params: ScanParams,
      response: { 200: Type.Object({ components: Type.Array(ComponentSchema) }), ...errorResponses(422) },
    },
  }, async (request) => {
    const { scan } = await requireScan(repos, principalOf(request), request.params.productId, request.params.imageId, request.params.scanId);
    return { components: await scanComponents(repos, scan) };
  });

  app.get('/api/v4/products/:productId/images/:imageId/scans/:scanId/problems', {
    config: { permission: 'scans.view' },
    schema: {
      tags: ['scans'], summary: 'Problems the scan recorded, a page at a time, optionally of some levels only',
      description: `${LEVEL_RULES} ${OUTCOME_RULES} Problems are listed in the order they were recorded; a scan that is not done answers 422.`,
      params: ScanParams,
      querystring: Type.Object({
        level: Type.Optional(Type.String({ description: 'info, warning or error; several comma-separated (default: all)' })),
        page: Type.Optional(Type.Integer({ minimum: 0, description: 'Page number, 1-based (0 means 1), as page.num of the grid routes' })),
        size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Rows per page, default 10, at most 100, as page.size of the grid routes' })),
      }),
      response: { 200: Type.Object({ total: Type.Integer({ description: 'Problems matching the level filter' }), rows: Type.Array(ProblemSchema) }), ...errorResponses(422) },
    },
  }, async (request) => {
    const { scan } = await requireScan(repos, principalOf(request), request.params.productId, request.params.imageId, request.params.scanId);
    return listScanProblems(repos, scan, request.query);
  });
};

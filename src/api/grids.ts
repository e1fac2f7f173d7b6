// POST /api/v4/grids/findings:gridList (search, filter, sort, page, compare findings; CSV export) and
// POST /api/v4/grids/cryptographicAssets:gridList.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/authenticate.js';
import { cryptoAssetGrid } from '../services/crypto-asset-grid.js';
import { findingGrid, gridCsv } from '../services/finding-grid.js';
import { MAX_FILTERS, MAX_LIST_VALUES } from '../services/grid-request.js';
import { attachmentDisposition } from './content-disposition.js';
import type { ApiDeps } from './deps.js';
import { errorResponses } from './schemas.js';

// List caps (why: see MAX_LIST_VALUES): checked here so the error names the field, and again by the services
// for the other routes that take a grid query (findingsReport:json).
const MAX_SORT_KEYS = 10;

const Value = Type.Union([
  Type.String(), Type.Number(), Type.Boolean(),
  Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]), { maxItems: MAX_LIST_VALUES }),
]);
const Sort = Type.Object({ field: Type.String(), direction: Type.Optional(Type.String()) }, { additionalProperties: false });
export const GridBody = Type.Object({
  filters: Type.Array(Type.Object({ field: Type.String(), value: Value, comparator: Type.Optional(Type.String()) }, { additionalProperties: false }), { maxItems: MAX_FILTERS }),
  page: Type.Optional(Type.Object({ num: Type.Optional(Type.Integer({ minimum: 0 })), size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }, { additionalProperties: false })),
  sortBy: Type.Optional(Type.Union([Sort, Type.Array(Sort, { maxItems: MAX_SORT_KEYS })])),
  fields: Type.Optional(Type.Array(Type.String(), { maxItems: 50 })),
}, { additionalProperties: false });

const FindingRow = Type.Object({
  id: Type.String(), pname: Type.String(), name: Type.String(), findingType: Type.String(), severity: Type.String(), issueStatus: Type.String(),
  identifiers: Type.Array(Type.Record(Type.String(), Type.String())), cvssLatestBaseScore: Type.Optional(Type.Number()),
  epssProbability: Type.Optional(Type.Number()), isKev: Type.Boolean(), componentName: Type.Optional(Type.String()),
  componentVersion: Type.Optional(Type.String()), productId: Type.String(), imageId: Type.String(), scanId: Type.String(),
  createTime: Type.String(), fingerprint: Type.String(), comparison: Type.Optional(Type.Object({ status: Type.String() })),
}, { $id: 'FindingRow' });

export const gridRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { repos }) => {
  app.addSchema(FindingRow);
  app.post('/api/v4/grids/findings::gridList', {
    config: { permission: 'findings.view' },
    schema: {
      tags: ['findings'], summary: 'Search and compare findings (contentType=csv: every matching row as CSV)',
      querystring: Type.Object({ contentType: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])) }),
      body: GridBody,
      response: { 200: Type.Object({ total: Type.Integer(), rows: Type.Array(Type.Ref('FindingRow')) }), ...errorResponses(415) },
    },
  }, async (request, reply) => {
    const principal = principalOf(request);
    if (request.query.contentType === 'csv') {
      const { rows } = await findingGrid(repos, principal, request.body, { all: true });
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', attachmentDisposition('findings.csv'))
        .serializer((payload: unknown) => payload as string)
        .send(gridCsv(rows) as never);
    }
    return findingGrid(repos, principal, request.body);
  });

  app.post('/api/v4/grids/cryptographicAssets::gridList', {
    config: { permission: 'findings.view' },
    schema: {
      tags: ['findings'], summary: 'Search cryptographic assets (algorithms, keys, certificates) of completed scans',
      body: GridBody,
      response: {
        200: Type.Object({
          total: Type.Integer(),
          rows: Type.Array(Type.Object({
            id: Type.String(), ref: Type.String(), assetType: Type.String(), name: Type.String(), details: Type.Record(Type.String(), Type.Unknown()),
            paths: Type.Array(Type.String()), evidence: Type.Array(Type.Record(Type.String(), Type.Unknown())), components: Type.Optional(Type.Array(Type.String())),
            productId: Type.String(), imageId: Type.String(), scanId: Type.String(),
          })),
        }),
        ...errorResponses(415),
      },
    },
  }, async (request) => (await cryptoAssetGrid(repos, principalOf(request), request.body)) as never);
};

// POST /api/v4/grids/findings:gridList (search, filter, sort, page, compare findings; CSV export),
// POST /api/v4/grids/cryptographicAssets:gridList and POST /api/v4/grids/binaries:gridList (CSV export).
import { Readable } from 'node:stream';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { principalOf } from '../auth/authenticate.js';
import { binaryGrid, binaryGridCsv } from '../services/binary-grid.js';
import { cryptoAssetGrid } from '../services/crypto-asset-grid.js';
import { findingGrid, findingGridCsv } from '../services/finding-grid.js';
import { MAX_FILTERS, MAX_LIST_VALUES, MAX_PAGE_SIZE } from '../services/grid-request.js';
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
  page: Type.Optional(Type.Object({ num: Type.Optional(Type.Integer({ minimum: 0 })), size: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE })) }, { additionalProperties: false })),
  sortBy: Type.Optional(Type.Union([Sort, Type.Array(Sort, { maxItems: MAX_SORT_KEYS })])),
  fields: Type.Optional(Type.Array(Type.String(), { maxItems: 50 })),
}, { additionalProperties: false });

const FindingRow = Type.Object({
  id: Type.String(), pname: Type.String(), name: Type.String(), findingType: Type.String(), severity: Type.String(), issueStatus: Type.String(),
  identifiers: Type.Array(Type.Record(Type.String(), Type.String())), cvssLatestBaseScore: Type.Optional(Type.Number()),
  epssProbability: Type.Optional(Type.Number()), isKev: Type.Boolean(), componentName: Type.Optional(Type.String()),
  componentVersion: Type.Optional(Type.String()), productId: Type.String(), imageId: Type.String(), scanId: Type.String(),
  matchConfidence: Type.Optional(Type.Object({ label: Type.String(), score: Type.Number() }, { description: 'How sure a dependency vulnerability match is (filter matchConfidence.label, sort or filter matchConfidence.score)' })),
  createTime: Type.String(), fingerprint: Type.String(), comparison: Type.Optional(Type.Object({ status: Type.String() })),
}, { $id: 'FindingRow' });

const Flag = (description: string) => Type.Optional(Type.Boolean({ description }));
const BinaryRow = Type.Object({
  id: Type.String(), path: Type.String({ description: 'Path of the binary in the unpacked image' }),
  format: Type.String({ description: 'elf | pe | te' }), type: Type.String({ description: 'executable | shared-object | kernel' }),
  arch: Type.String(), bits: Type.Integer(), endian: Type.String({ description: 'le | be' }),
  nx: Type.Boolean({ description: 'Non-executable stack (ELF) or DEP/NX_COMPAT (PE)' }),
  pie: Flag('ELF: position independent'), relro: Type.Optional(Type.String({ description: 'ELF: full | partial | none' })),
  canary: Flag('ELF: stack canary'), fortify: Flag('ELF: FORTIFY_SOURCE'), stripped: Flag('ELF: no symbol table'),
  rpath: Type.Optional(Type.String()), runpath: Type.Optional(Type.String()),
  aslr: Flag('PE: DYNAMIC_BASE'), highEntropyVa: Flag('PE: HIGH_ENTROPY_VA'), cfg: Flag('PE: Control Flow Guard'), safeSeh: Flag('PE: SafeSEH or no SEH'),
  forceIntegrity: Flag('PE: FORCE_INTEGRITY'), signed: Flag('PE: Authenticode signature attached (not verified)'),
  unsafeUses: Type.Integer({ description: 'Call sites of unsafe functions where decoded, otherwise the number of unsafe functions imported' }),
  callSitesDecoded: Type.Boolean(),
  unsafeFunctions: Type.Array(Type.String(), { description: 'Canonical names of the unsafe functions used' }),
  unsafeFunctionCalls: Type.Array(Type.Object({
    name: Type.String(), symbol: Type.String(), linkage: Type.String({ description: 'imported | static' }), callSites: Type.Optional(Type.Integer()),
    callers: Type.Array(Type.Object({ function: Type.String(), callSites: Type.Integer() })),
  })),
  networkFacing: Type.Boolean(), productId: Type.String(), imageId: Type.String(), scanId: Type.String(),
}, { $id: 'BinaryRow' });

/** A grid's CSV export, as an attachment (the text, or a stream of it, bypasses the JSON response schema). */
function sendCsv(reply: FastifyReply, fileName: string, csv: string | AsyncIterable<string>) {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', attachmentDisposition(fileName))
    .serializer((payload: unknown) => payload as string)
    .send((typeof csv === 'string' ? csv : Readable.from(csv)) as never);
}

export const gridRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { repos }) => {
  app.addSchema(FindingRow);
  app.addSchema(BinaryRow);
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
      // streamed in batches: an export of any size holds a batch of rows in memory, not all of them
      return sendCsv(reply, 'findings.csv', findingGridCsv(repos, principal, request.body));
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

  app.post('/api/v4/grids/binaries::gridList', {
    config: { permission: 'findings.view' },
    schema: {
      tags: ['findings'],
      summary: 'Search the binaries of completed scans: hardening, unsafe function uses, network-facing (contentType=csv: every matching row as CSV)',
      querystring: Type.Object({ contentType: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])) }),
      body: GridBody,
      response: { 200: Type.Object({ total: Type.Integer(), rows: Type.Array(Type.Ref('BinaryRow')) }), ...errorResponses(415) },
    },
  }, async (request, reply) => {
    const principal = principalOf(request);
    if (request.query.contentType === 'csv') {
      const { rows } = await binaryGrid(repos, principal, request.body, { all: true });
      return sendCsv(reply, 'binaries.csv', binaryGridCsv(rows));
    }
    return binaryGrid(repos, principal, request.body);
  });
};

// GET …/scans/:scanId/fileTree: the extracted file tree of a finished scan, one directory at a time;
// GET …/scans/:scanId/fileHead: the first bytes the scan kept of one file, for a hex view.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/authenticate.js';
import { requireScan } from '../services/access.js';
import { fileHead, HEAD_BYTES_KEPT, listFileTree } from '../services/file-tree.js';
import type { ApiDeps } from './deps.js';
import { errorResponses, Ulid } from './schemas.js';

const ScanParams = Type.Object({ productId: Ulid('Product id'), imageId: Ulid('Image id'), scanId: Ulid('Scan id') });
const NodeSchema = Type.Object({
  path: Type.String(), fsPath: Type.String(), kind: Type.String({ description: 'file | directory | symlink | hardlink | device | fifo | socket' }),
  size: Type.Number(), type: Type.String({ description: 'Detected content type: elf, pe, text, squashfs, data, …' }),
  sha256: Type.Optional(Type.String()), format: Type.Optional(Type.String({ description: 'The unpacker that produced it' })),
  parent: Type.Optional(Type.String({ description: 'The node it was extracted from' })), offset: Type.Optional(Type.Number()),
  depth: Type.Integer(), mode: Type.Optional(Type.Integer()), uid: Type.Optional(Type.Integer()), gid: Type.Optional(Type.Integer()),
  mtime: Type.Optional(Type.Number()), linkTarget: Type.Optional(Type.String()),
});
const EntrySchema = Type.Object({
  path: Type.String(),
  node: Type.Optional(NodeSchema),
  descendants: Type.Integer({ description: 'Nodes anywhere below this path' }),
}, { $id: 'FileTreeEntry' });

export const fileTreeRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { repos, blobs }) => {
  app.addSchema(EntrySchema);
  app.get('/api/v4/products/:productId/images/:imageId/scans/:scanId/fileTree', {
    config: { permission: 'scans.view' },
    schema: {
      tags: ['scans'], summary: 'The extracted file tree, one directory at a time (dir: a tree path; empty for the top)', params: ScanParams,
      querystring: Type.Object({
        dir: Type.Optional(Type.String({ maxLength: 4096, description: 'The directory (tree path) to list; empty or absent for the top' })),
        page: Type.Optional(Type.Integer({ minimum: 0, description: 'Page number, 1-based (0 means 1)' })),
        size: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'Entries per page, default 200' })),
      }),
      response: { 200: Type.Object({ total: Type.Integer(), entries: Type.Array(Type.Ref('FileTreeEntry')) }), ...errorResponses(422) },
    },
  }, async (request) => {
    const { scan } = await requireScan(repos, principalOf(request), request.params.productId, request.params.imageId, request.params.scanId);
    const size = request.query.size ?? 200;
    const page = Math.max(1, request.query.page ?? 1);
    return listFileTree(blobs, scan, request.query.dir ?? '', (page - 1) * size, size);
  });

  app.get('/api/v4/products/:productId/images/:imageId/scans/:scanId/fileHead', {
    config: { permission: 'scans.view' },
    schema: {
      tags: ['scans'], summary: `The first bytes (up to ${HEAD_BYTES_KEPT}) of an extracted file, kept by the scan for a hex view`, params: ScanParams,
      querystring: Type.Object({ path: Type.String({ minLength: 1, maxLength: 4096, description: 'The file\'s tree path (FileTreeEntry.path)' }) }),
      response: {
        200: Type.Object({
          path: Type.String(), size: Type.Number({ description: 'The whole file\'s size' }),
          offset: Type.Integer({ description: 'Where the bytes start in the file: always 0' }),
          bytes: Type.Optional(Type.String({ description: 'Base64; absent when the scan kept none (scans made before they were kept): scan again' })),
        }),
        ...errorResponses(422),
      },
    },
  }, async (request) => {
    const { scan } = await requireScan(repos, principalOf(request), request.params.productId, request.params.imageId, request.params.scanId);
    const head = await fileHead(blobs, scan, request.query.path);
    return { path: head.path, size: head.size, offset: 0, ...(head.bytes ? { bytes: head.bytes.toString('base64') } : {}) };
  });
};

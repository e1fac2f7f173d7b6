// Files attached to an image (debug symbols: .pdb, ELF debug files): attach (which queues a scan that uses the
// file, unless `rescan=false`), list, get, download.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/authenticate.js';
import { requireImage } from '../services/access.js';
import { attachDebugFile } from '../services/debug-files.js';
import { listImageFiles, openImageFile, requireImageFile } from '../services/images.js';
import { InvalidInputError } from '../errors.js';
import { sanitizeName } from '../services/uploads.js';
import { attachmentDisposition } from './content-disposition.js';
import type { ApiDeps } from './deps.js';
import { readForm } from './multipart-form.js';
import { Bool, parseBool } from './images.js';
import { fileOut } from './presenters.js';
import { errorResponses, Ulid } from './schemas.js';

const ImageParams = Type.Object({ productId: Ulid('Product id'), imageId: Ulid('Image id') });
const FileParams = Type.Object({ productId: Ulid('Product id'), imageId: Ulid('Image id'), fileId: Ulid('File id') });

export const fileRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { repos, blobs, uploads, baseUrl }) => {
  app.post('/api/v4/products/:productId/images/:imageId/files', {
    config: { permission: 'images.update' },
    schema: {
      tags: ['files'], summary: 'Attach a debug symbol file (multipart field `file`) and queue a scan that uses it', consumes: ['multipart/form-data'], params: ImageParams,
      description: 'A PDB is matched to a PE image by the GUID and age of its CodeView record, an ELF debug file (`objcopy --only-keep-debug`, or any ELF with symbols or DWARF) to a stripped binary by GNU build-id; their function names then name the callers of unsafe functions. A file that matches no binary of the image is a warning problem of the scan.',
      querystring: Type.Object({ rescan: Bool('Queue a new scan of the image that uses the file (default true)') }),
      response: {
        201: Type.Object({ id: Type.String(), filename: Type.String(), createTime: Type.String(), scanId: Type.Optional(Type.String({ description: 'The scan queued to use the file (absent with rescan=false)' })) }),
        ...errorResponses(413, 415, 507),
      },
    },
  }, async (request, reply) => {
    const principal = principalOf(request);
    const { image } = await requireImage(repos, principal, request.params.productId, request.params.imageId);
    const rescan = parseBool(request.query.rescan, 'rescan', true);
    if (!request.isMultipart()) throw new InvalidInputError('send the file as multipart/form-data in a part named `file`', [{ reason: 'required', field: 'file' }]);
    const form = await readForm(request, blobs, { area: 'files', maxBytes: uploads.maxBytes });
    if (!form.file) throw new InvalidInputError('the multipart form has no `file` part', [{ reason: 'required', field: 'file' }]);
    const filename = sanitizeName(form.file.filename || 'debug-symbols');
    const { file, scan } = await attachDebugFile(repos, blobs, principal, image, {
      filename, blob: form.file.blob, rescan,
      metadata: { contentType: form.file.mimetype, size: form.file.blob.size, sha256: form.file.blob.sha256, kind: kindOf(filename) },
    });
    return reply.status(201).send({ id: file.id, filename: file.filename, createTime: file.createTime, ...(scan && { scanId: scan.id }) });
  });

  app.get('/api/v4/products/:productId/images/:imageId/files', {
    config: { permission: 'images.view' },
    schema: { tags: ['files'], summary: 'Files attached to the image', params: ImageParams, response: { 200: Type.Object({ files: Type.Array(Type.Ref('File')) }), ...errorResponses() } },
  }, async (request) => {
    return { files: (await listImageFiles(repos, principalOf(request), request.params.productId, request.params.imageId)).map((f) => fileOut(f, baseUrl)) };
  });

  app.get('/api/v4/products/:productId/images/:imageId/files/:fileId', {
    config: { permission: 'images.view' },
    schema: { tags: ['files'], summary: 'One attached file (with its downloadUrl)', params: FileParams, response: { 200: Type.Ref('File'), ...errorResponses() } },
  }, async (request) => {
    const file = await requireImageFile(repos, principalOf(request), request.params.productId, request.params.imageId, request.params.fileId);
    return fileOut(file, baseUrl);
  });

  app.get('/api/v4/products/:productId/images/:imageId/files/:fileId/download', {
    config: { permission: 'images.view' },
    schema: { tags: ['files'], summary: 'Download an attached file', params: FileParams, response: { 200: Type.Unknown(), ...errorResponses() } },
  }, async (request, reply) => {
    const { file, content } = await openImageFile(repos, blobs, principalOf(request), request.params.productId, request.params.imageId, request.params.fileId);
    return reply
      .header('content-type', 'application/octet-stream')
      .header('content-disposition', attachmentDisposition(file.filename))
      .send(content);
  });
};

function kindOf(filename: string): string {
  const lower = filename.toLowerCase();
  if (lower.endsWith('.pdb')) return 'pdb';
  if (lower.endsWith('.debug') || lower.endsWith('.dbg') || lower.endsWith('.sym')) return 'elf-debug';
  return 'other';
}

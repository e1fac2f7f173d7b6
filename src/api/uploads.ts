// The pre-signed PUT: authorised by its URL signature alone (no bearer token), any content type, streamed
// to the blob store.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { receiveUpload } from '../services/uploads.js';
import type { ApiDeps } from './deps.js';
import { Ulid } from './schemas.js';

export const uploadRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { repos, blobs, uploads }) => {
  // Raw bodies of any type stay unread streams here; the handler pipes them to storage.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.put('/uploads/products/:productId/tempFiles/:tempFileId', {
    bodyLimit: Number.MAX_SAFE_INTEGER,
    schema: {
      tags: ['images'], summary: 'Upload the image to a pre-signed URL (raw body, no Authorization header)',
      params: Type.Object({ productId: Ulid('Product id'), tempFileId: Ulid('Temp file id') }),
      querystring: Type.Object({ expires: Type.Integer(), signature: Type.String({ minLength: 1 }) }),
      response: {
        200: Type.Object({ id: Type.String(), size: Type.Integer(), sha256: Type.String() }),
        400: Type.Ref('Error'), 403: Type.Ref('Error'), 404: Type.Ref('Error'), 409: Type.Ref('Error'), 413: Type.Ref('Error'), 507: Type.Ref('Error'),
      },
    },
  }, async (request) => {
    const { productId, tempFileId } = request.params;
    const body = request.body as NodeJS.ReadableStream | undefined;
    const stream = body ?? request.raw;
    const blob = await receiveUpload(repos, blobs, uploads, { productId, tempFileId, ...request.query }, stream as import('node:stream').Readable);
    return { id: tempFileId, size: blob.size, sha256: blob.sha256 };
  });
};

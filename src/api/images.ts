// Images of a product: list, get (with counts; findings report forms), update, upload URL, finalize and
// direct upload. The signed PUT itself is in uploads.ts (it carries no bearer token).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/authenticate.js';
import { requireImage, requireProduct } from '../services/access.js';
import { InvalidInputError } from '../errors.js';
import { imageView, latestFindings, listImages, updateImage } from '../services/images.js';
import { finalizeUpload, generateUploadUrl } from '../services/uploads.js';
import type { ApiDeps } from './deps.js';
import { readForm } from './multipart-form.js';
import { imageOut } from './presenters.js';
import { errorResponses, Ulid } from './schemas.js';
import { discardFormFile } from '../services/form-files.js';
import { renderReport } from '../services/reports.js';
import { sendReport } from './reports.js';

const ProductParams = Type.Object({ productId: Ulid('Product id') });
const ImageParams = Type.Object({ productId: Ulid('Product id'), imageId: Ulid('Image id') });
export const Bool = (description: string) => Type.Optional(Type.Union([Type.Boolean(), Type.String()], { description }));

export function parseBool(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === true || value === 'true' || value === '1') return true;
  if (value === false || value === 'false' || value === '0') return false;
  throw new InvalidInputError(`${name} must be true or false`, [{ reason: 'invalid', field: name }]);
}

export const imageRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, deps) => {
  const { repos, blobs, uploads, baseUrl } = deps;

  app.get('/api/v4/products/:productId/images', {
    config: { permission: 'images.view' },
    schema: {
      tags: ['images'], summary: 'List images of a product', params: ProductParams,
      querystring: Type.Object({ status: Bool('Reported scan states (in_progress, completed, ...)'), withCounts: Bool('Include counts (default false here)') }),
      response: { 200: Type.Object({ images: Type.Array(Type.Ref('Image')) }), ...errorResponses() },
    },
  }, async (request) => {
    const options = { reported: parseBool(request.query.status, 'status', false), baseUrl };
    const images = await listImages(repos, principalOf(request), request.params.productId, parseBool(request.query.withCounts, 'withCounts', false));
    return { images: images.map((view) => imageOut(view, options)) };
  });

  app.get('/api/v4/products/:productId/images/:imageId', {
    config: { permission: 'images.view' },
    schema: {
      tags: ['images'], summary: 'Get an image; with contentType=pdf|json|csv and imageFields=findings: the findings report', params: ImageParams,
      querystring: Type.Object({
        status: Bool('Reported scan states'), withCounts: Bool('Include counts (default true)'),
        imageFields: Type.Optional(Type.String({ description: 'findings: include every finding of the latest completed scan' })),
        contentType: Type.Optional(Type.Union([Type.Literal('pdf'), Type.Literal('json'), Type.Literal('csv')])),
      }),
      response: { 200: Type.Ref('Image'), ...errorResponses(422) },
    },
  }, async (request, reply) => {
    const { image, product } = await requireImage(repos, principalOf(request), request.params.productId, request.params.imageId);
    const fields = (request.query.imageFields ?? '').split(',').map((f) => f.trim()).filter(Boolean);
    const unknown = fields.filter((f) => f !== 'findings');
    if (unknown.length) throw new InvalidInputError(`unknown imageFields value '${unknown[0]}'; supported: findings`, [{ reason: 'invalid', field: 'imageFields' }]);
    if (request.query.contentType === 'pdf' || request.query.contentType === 'csv') {
      return sendReport(reply, await renderReport(repos, blobs, { product, image }, `findings-${request.query.contentType}`));
    }
    const view = await imageView(repos, image, parseBool(request.query.withCounts, 'withCounts', true));
    const out = imageOut(view, { reported: parseBool(request.query.status, 'status', false), baseUrl });
    if (!fields.includes('findings')) return out;
    return { ...out, findings: await latestFindings(repos, image) };
  });

  app.patch('/api/v4/products/:productId/images/:imageId', {
    config: { permission: 'images.update' },
    schema: {
      tags: ['images'], summary: 'Update an image', params: ImageParams,
      body: Type.Object({
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), version: Type.Optional(Type.String({ maxLength: 100 })), isArchived: Type.Optional(Type.Boolean()),
      }, { additionalProperties: false }),
      response: { 200: Type.Ref('Image'), ...errorResponses(415) },
    },
  }, async (request) => {
    const updated = await updateImage(repos, principalOf(request), request.params.productId, request.params.imageId, request.body);
    return imageOut(updated, { reported: false, baseUrl });
  });

  app.get('/api/v4/products/:productId/tempFiles::generateUploadUrl', {
    config: { permission: 'images.create' },
    schema: {
      tags: ['images'], summary: 'Generate a pre-signed upload URL (PUT the image to it without a bearer token)', params: ProductParams,
      response: { 200: Type.Object({ id: Type.String(), uploadUrl: Type.String() }), ...errorResponses() },
    },
  }, async (request) => generateUploadUrl(repos, blobs, uploads, principalOf(request), request.params.productId));

  app.post('/api/v4/products/:productId/images::upload', {
    config: { permission: 'images.create' },
    schema: {
      tags: ['images'],
      summary: 'Finalize an upload (tempFileId) or upload directly (file part); fields from the multipart form or the query string',
      consumes: ['multipart/form-data', 'application/json', 'application/x-www-form-urlencoded'],
      params: ProductParams,
      querystring: Type.Object({
        tempFileId: Type.Optional(Type.String()), imageName: Type.Optional(Type.String()), version: Type.Optional(Type.String()),
        filename: Type.Optional(Type.String()), createScan: Bool('Start a scan (default true)'),
      }),
      response: { 201: Type.Ref('Image'), ...errorResponses(409, 413, 415, 507) },
    },
  }, async (request, reply) => {
    const principal = principalOf(request);
    await requireProduct(repos, principal, request.params.productId);
    const query = request.query;
    const form = await readForm(request, blobs, {
      area: 'images', maxBytes: uploads.maxBytes, skipFile: (fields) => Boolean(query.tempFileId ?? fields.tempFileId),
    });
    const field = (name: 'tempFileId' | 'imageName' | 'version' | 'filename' | 'createScan') => form.fields[name] ?? (query[name] as string | undefined);
    try {
      const { image } = await finalizeUpload(repos, blobs, uploads, principal, request.params.productId, {
        tempFileId: field('tempFileId')?.trim() || undefined, imageName: field('imageName'), version: field('version'), filename: field('filename'),
        createScan: parseBool(field('createScan'), 'createScan', true), file: form.file,
      });
      return reply.status(201).send(imageOut(await imageView(repos, image, false), { reported: false, baseUrl }));
    } catch (error) {
      if (form.file && field('tempFileId') === undefined) await discardFormFile(blobs, form.file.blob);
      throw error;
    }
  });
};

// Reads a multipart form whose file parts stream straight into the blob store, and tolerates the forms real
// clients send: an empty multipart body, a body with no parts, fields only.
import type {} from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { BlobStore, StoredBlob } from '../services/context.js';
import { discardFormFile, storeFormFile } from '../services/form-files.js';
import { DomainError, InvalidInputError } from '../errors.js';
import { refuseNul } from './nul-guard.js';

export interface ParsedForm {
  fields: Record<string, string>;
  file?: { filename: string; blob: StoredBlob; mimetype: string };
}

export async function readForm(
  request: FastifyRequest, blobs: BlobStore, options: { area: 'images' | 'files'; maxBytes: number; skipFile?: (fields: Record<string, string>) => boolean },
): Promise<ParsedForm> {
  const form: ParsedForm = { fields: {} };
  if (!request.isMultipart()) {
    // JSON or url-encoded bodies carry fields only.
    const body = request.body;
    if (body && typeof body === 'object') {
      for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') form.fields[key] = String(value);
      }
    }
    return form;
  }
  if (request.headers['content-length'] === '0') return form;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (typeof part.value === 'string') form.fields[part.fieldname] = part.value;
        continue;
      }
      if (part.fieldname !== 'file' || form.file || options.skipFile?.(form.fields)) {
        part.file.resume();
        continue;
      }
      const blob = await storeFormFile(blobs, options.area, part.file, options.maxBytes);
      form.file = { filename: part.filename, blob, mimetype: part.mimetype };
    }
    refuseNul(form.fields, 'form');
  } catch (error) {
    if (form.file) await discardFormFile(blobs, form.file.blob);
    // An empty or truncated multipart body (no closing boundary) is read as "no parts" only when nothing came.
    const message = error instanceof Error ? error.message : String(error);
    if (/Unexpected end of (form|multipart data)/i.test(message) && !form.file && Object.keys(form.fields).length === 0) return form;
    if (error instanceof DomainError || (error instanceof Error && 'statusCode' in error)) throw error;
    throw new InvalidInputError(`the multipart body could not be read: ${message}`);
  }
  return form;
}

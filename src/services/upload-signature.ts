// Pre-signed upload URLs: an HMAC over the method, product, temp file and expiry, so the URL works only for
// a PUT of that temp file in that product until it expires, with no bearer token.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ForbiddenError } from '../errors.js';

export interface UploadTarget {
  productId: string;
  tempFileId: string;
  /** Unix seconds. */
  expires: number;
}

function sign(secret: string, target: UploadTarget): string {
  return createHmac('sha256', secret).update(`PUT\n${target.productId}\n${target.tempFileId}\n${target.expires}`).digest('base64url');
}

export function uploadUrl(baseUrl: string, secret: string, target: UploadTarget): string {
  const query = new URLSearchParams({ expires: String(target.expires), signature: sign(secret, target) });
  return `${baseUrl}/uploads/products/${target.productId}/tempFiles/${target.tempFileId}?${query}`;
}

/** Throws ForbiddenError when the signature does not match or has expired. */
export function verifyUpload(secret: string, target: UploadTarget, signature: string, now = Date.now()): void {
  const expected = Buffer.from(sign(secret, target));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new ForbiddenError('the upload URL signature is invalid; request a new URL with tempFiles:generateUploadUrl');
  }
  if (!Number.isSafeInteger(target.expires) || target.expires * 1000 < now) {
    throw new ForbiddenError('the upload URL has expired; request a new one with tempFiles:generateUploadUrl');
  }
}

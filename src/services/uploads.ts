// Image upload use cases (API-NOTES "Upload"): generate a signed URL, receive the PUT into the blob store,
// finalize a temp file (or a direct upload) into an image, and start its scan.
import type { Readable } from 'node:stream';
import type { Principal } from '../auth/principal.js';
import type { BlobStore, StoredBlob } from '../store/blob-store.js';
import type { Image } from '../store/image.repository.js';
import { newId } from '../ids.js';
import type { Scan } from '../store/scan.repository.js';
import { requireProduct } from './access.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors.js';
import type { Repositories } from '../store/repositories.js';
import { createScanIn } from './scans.js';
import { emitEvent } from './webhook-events.js';
import { uploadUrl, verifyUpload } from './upload-signature.js';

export interface UploadSettings {
  baseUrl: string;
  secret: string;
  urlSeconds: number;
  maxBytes: number;
}

/**
 * A temp file and the URL its image is PUT to: a pre-signed PUT straight to the bucket when the blob store takes
 * direct uploads (S3), so image bytes never pass through the API servers; otherwise this service's HMAC-signed URL.
 */
export async function generateUploadUrl(
  repos: Repositories, blobs: BlobStore, settings: UploadSettings, principal: Principal, productId: string,
): Promise<{ id: string; uploadUrl: string }> {
  const product = await requireProduct(repos, principal, productId);
  const expires = Math.floor(Date.now() / 1000) + settings.urlSeconds;
  const temp = await repos.images.createTempFile({
    productId: product.id, orgId: product.orgId, authorId: principal.userId, expireTime: new Date(expires * 1000).toISOString(),
  });
  const url = blobs.directUploads
    ? await blobs.directUploads.putUrl(directUploadKey(temp.id), settings.urlSeconds)
    : uploadUrl(settings.baseUrl, settings.secret, { productId: product.id, tempFileId: temp.id, expires });
  return { id: temp.id, uploadUrl: url };
}

/** Where a temp file's pre-signed PUT lands (the image keeps a copy under a key of its own, see adoptDirectUpload). */
const directUploadKey = (tempFileId: string): string => `incoming/${tempFileId}`;

/**
 * A temp file PUT straight to the bucket is unknown to the database until finalize: the store checks its size
 * (HEAD), copies it to a key no URL can write and hashes it in one pass, and the upload is committed like one
 * received by this service. Undefined when nothing was PUT.
 */
async function adoptDirectUpload(repos: Repositories, blobs: BlobStore, settings: UploadSettings, tempFileId: string): Promise<void> {
  const blob = await blobs.directUploads?.adopt(directUploadKey(tempFileId), `uploads/${tempFileId}-${newId()}`, settings.maxBytes);
  if (!blob) return;
  // a concurrent finalize committed its own copy first: this one is referenced by nothing
  if (!(await repos.images.commitUpload(tempFileId, null, blob))) await blobs.delete(blob.key);
}

/**
 * The signed PUT. Each PUT streams into a blob key of its own, then commits it to the temp file with a
 * compare-and-set (see ImageRepository.commitUpload): a PUT never writes bytes that an image or another PUT
 * refers to, so a finalized image's blob never changes. A PUT that loses (the temp file was finalized, or a
 * concurrent PUT committed first) deletes its blob and answers 409.
 */
export async function receiveUpload(
  repos: Repositories, blobs: BlobStore, settings: UploadSettings,
  target: { productId: string; tempFileId: string; expires: number; signature: string }, body: Readable,
): Promise<StoredBlob> {
  verifyUpload(settings.secret, target, target.signature);
  const temp = await repos.images.getTempFile(target.productId, target.tempFileId);
  if (!temp) throw new NotFoundError(`temp file ${target.tempFileId} not found`);
  if (temp.status === 'used') throw new ConflictError(`temp file ${target.tempFileId} was already finalized into an image; request a new upload URL`);
  const blob = await blobs.write(`uploads/${temp.id}-${newId()}`, body, { maxBytes: settings.maxBytes });
  if (!(await repos.images.commitUpload(temp.id, temp.blob?.key ?? null, blob))) {
    await blobs.delete(blob.key);
    const now = await repos.images.getTempFile(target.productId, target.tempFileId);
    throw new ConflictError(now?.status === 'used'
      ? `temp file ${target.tempFileId} was finalized into an image while this upload was streaming; the image keeps the earlier upload (request a new upload URL to send another)`
      : `another upload to temp file ${target.tempFileId} completed while this one was streaming and was kept; PUT again to replace it`);
  }
  // The upload this one replaced is referenced by nothing now.
  if (temp.blob) await blobs.delete(temp.blob.key);
  return blob;
}

export interface FinalizeInput {
  tempFileId?: string;
  imageName?: string;
  version?: string;
  filename?: string;
  createScan: boolean;
  /** The `file` part, already streamed into the blob store: the image for a direct upload, ignored with tempFileId. */
  file?: { filename: string; blob: StoredBlob };
}

export async function finalizeUpload(
  repos: Repositories, blobs: BlobStore, settings: UploadSettings, principal: Principal, productId: string, input: FinalizeInput,
): Promise<{ image: Image; scan?: Scan }> {
  const product = await requireProduct(repos, principal, productId);
  const imageName = input.imageName?.trim();
  if (!imageName) throw new InvalidInputError('imageName is required (form field or query parameter)', [{ reason: 'required', field: 'imageName' }]);
  let blob: StoredBlob | undefined;
  let claimTempId: string | undefined;
  let fileName = input.filename?.trim() || input.file?.filename || imageName;
  if (input.tempFileId) {
    let temp = await repos.images.getTempFile(product.id, input.tempFileId);
    if (temp?.status === 'pending' && blobs.directUploads) {
      await adoptDirectUpload(repos, blobs, settings, temp.id);
      temp = await repos.images.getTempFile(product.id, input.tempFileId);
    }
    if (!temp) throw new NotFoundError(`temp file ${input.tempFileId} not found in product ${productId}`, [{ reason: 'notFound', field: 'tempFileId' }]);
    if (temp.status === 'pending' || !temp.blob) {
      throw new ConflictError(`temp file ${input.tempFileId} has not been uploaded; PUT the image to its uploadUrl first`, [{ reason: 'notUploaded', field: 'tempFileId' }]);
    }
    if (temp.status === 'used') throw alreadyFinalized(input.tempFileId);
    // the seed's required-but-ignored `file` part: its name counts only when it held the file (not `@/dev/null`)
    const named = input.file && input.file.blob.size > 0 && input.file.filename !== 'blob' ? input.file.filename : undefined;
    if (input.file) await blobs.delete(input.file.blob.key);
    claimTempId = temp.id;
    fileName = input.filename?.trim() || named || imageName;
  } else if (input.file) {
    blob = input.file.blob;
    if (blob.size === 0) {
      await blobs.delete(blob.key);
      throw new InvalidInputError('the file part is empty: send the image in `file`, or a tempFileId of an uploaded temp file', [{ reason: 'required', field: 'file' }]);
    }
  } else {
    throw new InvalidInputError('send tempFileId (after the PUT to its uploadUrl) or the image in a `file` part', [{ reason: 'required', field: 'tempFileId' }]);
  }
  // Claiming the upload, creating the image and its scan are one transaction: a crash between them must not
  // leave a temp file spent without its image (the client's retry would get 409 and the upload be lost), nor
  // an image without the scan that was asked for.
  const finalized = repos.transaction(async (tx) => {
    const stored = claimTempId ? await tx.images.claimUpload(claimTempId) : blob;
    if (!stored) throw alreadyFinalized(claimTempId!);
    const image = await tx.images.create({
      productId: product.id, orgId: product.orgId, name: imageName, version: input.version?.trim() || null,
      fileName: sanitizeName(fileName), blob: stored, authorId: principal.userId,
    });
    const scan = input.createScan ? await createScanIn(tx, image, principal.userId) : undefined;
    await emitEvent(tx, {
      orgId: image.orgId, type: 'image.created', baseUrl: settings.baseUrl,
      data: { productId: image.productId, imageId: image.id, name: image.name, version: image.version, ...(scan ? { scanId: scan.id } : {}) },
    });
    return { image, scan };
  });
  // a direct upload's blob belongs to no image when the transaction fails: remove it (a claimed upload stays)
  return finalized.catch(async (error: unknown) => {
    if (!claimTempId && blob) await blobs.delete(blob.key).catch(() => {});
    throw error;
  });
}

function alreadyFinalized(tempFileId: string): ConflictError {
  return new ConflictError(`temp file ${tempFileId} was already finalized into an image; request a new upload URL`, [{ reason: 'alreadyUsed', field: 'tempFileId' }]);
}

/** The last path segment, without control characters: a display name, never a path. */
export function sanitizeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  return base.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255) || 'image.bin';
}

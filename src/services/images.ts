// Reading and updating images and their attached files, as the API shows them: each image with its overview
// (scans, files, counts, hardening), read for a whole list at once (ImageOverviewRepository).
import type { Principal } from '../auth/principal.js';
import type { StoredFinding } from '../store/finding.repository.js';
import type { ImageOverview } from '../store/image-overview.repository.js';
import type { Image, ImageFile } from '../store/image.repository.js';

export type { Image, ImageFile };
import { requireImage, requireProduct } from './access.js';
import { NotFoundError } from '../errors.js';
import type { Repositories } from '../store/repositories.js';
import type { BlobStore } from '../store/blob-store.js';
import type { Readable } from 'node:stream';

export interface ImageView {
  image: Image;
  overview: ImageOverview;
}

async function viewsOf(repos: Repositories, images: Image[], withCounts: boolean): Promise<ImageView[]> {
  const overviews = await repos.overviews.of(images.map((i) => i.id), { withCounts });
  return images.map((image) => ({ image, overview: overviews.get(image.id)! }));
}

export async function imageView(repos: Repositories, image: Image, withCounts: boolean): Promise<ImageView> {
  return (await viewsOf(repos, [image], withCounts))[0]!;
}

export async function listImages(repos: Repositories, principal: Principal, productId: string, withCounts: boolean): Promise<ImageView[]> {
  const product = await requireProduct(repos, principal, productId);
  return viewsOf(repos, await repos.images.list(product.id), withCounts);
}

/** Every finding of the image's latest completed scan (none before one exists). */
export async function latestFindings(repos: Repositories, image: Image): Promise<StoredFinding[]> {
  const latest = await repos.scans.latest(image.id, ['done']);
  return latest ? repos.findings.ofScan(latest.id) : [];
}

export async function updateImage(
  repos: Repositories, principal: Principal, productId: string, imageId: string,
  changes: { name?: string; version?: string; isArchived?: boolean },
): Promise<ImageView> {
  const { image } = await requireImage(repos, principal, productId, imageId);
  const updated = await repos.images.update(image.productId, image.id, changes);
  return imageView(repos, updated!, true);
}

export async function listImageFiles(repos: Repositories, principal: Principal, productId: string, imageId: string): Promise<ImageFile[]> {
  const { image } = await requireImage(repos, principal, productId, imageId);
  return repos.images.listFiles(image.id);
}

export async function requireImageFile(repos: Repositories, principal: Principal, productId: string, imageId: string, fileId: string): Promise<ImageFile> {
  const { image } = await requireImage(repos, principal, productId, imageId);
  const file = await repos.images.getFile(image.id, fileId);
  if (!file) throw new NotFoundError(`file ${fileId} not found`, [{ reason: 'notFound', field: 'fileId' }]);
  return file;
}

/** An attached file and its content, for download. */
export async function openImageFile(
  repos: Repositories, blobs: BlobStore, principal: Principal, productId: string, imageId: string, fileId: string,
): Promise<{ file: ImageFile; content: Readable }> {
  const file = await requireImageFile(repos, principal, productId, imageId, fileId);
  return { file, content: await blobs.read(file.blobKey) };
}

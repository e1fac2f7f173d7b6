// Loads a resource the caller may see, or throws NotFoundError: another organisation's resources are
// indistinguishable from missing ones.
import type { Principal } from '../auth/principal.js';
import type { Image } from '../store/image.repository.js';
import type { Product } from '../store/product.repository.js';
import type { Scan } from '../store/scan.repository.js';
import { NotFoundError } from '../errors.js';
import type { Repositories } from '../store/repositories.js';

export async function requireProduct(repos: Repositories, principal: Principal, productId: string): Promise<Product> {
  const product = await repos.products.get(principal.orgId, productId);
  if (!product) throw new NotFoundError(`product ${productId} not found`, [{ reason: 'notFound', field: 'productId' }]);
  return product;
}

export async function requireImage(repos: Repositories, principal: Principal, productId: string, imageId: string): Promise<{ product: Product; image: Image }> {
  const product = await requireProduct(repos, principal, productId);
  const image = await repos.images.get(product.id, imageId);
  if (!image) throw new NotFoundError(`image ${imageId} not found in product ${productId}`, [{ reason: 'notFound', field: 'imageId' }]);
  return { product, image };
}

export async function requireScan(
  repos: Repositories, principal: Principal, productId: string, imageId: string, scanId: string,
): Promise<{ product: Product; image: Image; scan: Scan }> {
  const { product, image } = await requireImage(repos, principal, productId, imageId);
  const scan = await repos.scans.get(image.id, scanId);
  if (!scan) throw new NotFoundError(`scan ${scanId} not found in image ${imageId}`, [{ reason: 'notFound', field: 'scanId' }]);
  return { product, image, scan };
}

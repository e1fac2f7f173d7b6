// Products of the caller's organisation: list, create, update (or archive).
import type { Principal } from '../auth/principal.js';
import type { Product } from '../store/product.repository.js';

export type { Product };
import { requireProduct } from './access.js';
import type { Repositories } from '../store/repositories.js';

export function listProducts(repos: Repositories, principal: Principal, options: { includeArchived?: boolean }): Promise<Product[]> {
  return repos.products.list(principal.orgId, options);
}

export function createProduct(repos: Repositories, principal: Principal, input: { name: string; description?: string }): Promise<Product> {
  return repos.products.create({ orgId: principal.orgId, name: input.name.trim(), description: input.description ?? null, authorId: principal.userId });
}

export async function updateProduct(
  repos: Repositories, principal: Principal, productId: string, changes: { name?: string; description?: string; isArchived?: boolean },
): Promise<Product> {
  const product = await requireProduct(repos, principal, productId);
  const updated = await repos.products.update(principal.orgId, product.id, {
    name: changes.name?.trim(), description: changes.description, isArchived: changes.isArchived,
  });
  return updated!;
}

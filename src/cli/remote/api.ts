// Reading answers of the typed client in the command line: the data, or a CliError that says what to do.
import { expectData, FirmscopeApiError, type FirmscopeClient } from '../../client/index.js';
import { CliError } from './session.js';

export function data<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  try {
    return expectData(answer);
  } catch (error) {
    if (!(error instanceof FirmscopeApiError)) throw error;
    if (error.status === 401) throw new CliError(`the server refused the credentials (${error.message}): run \`firmscope login\` again`);
    if (error.status === 403) throw new CliError(`not allowed: ${error.message}`);
    if (error.status === 413) throw new CliError(`the file is too large for this server: ${error.message}`);
    throw new CliError(error.message);
  }
}

export interface ProductRef { id: string; name: string }
export interface ImageRef { id: string; name: string; productId: string; version?: string; createTime: string }

const idOf = (resourceName: string): string => resourceName.split('/').pop()!;

export async function listProducts(client: FirmscopeClient): Promise<ProductRef[]> {
  const answer = data(await client.GET('/api/v4/products'));
  return answer.products.map((p) => ({ id: idOf(p.id), name: p.name }));
}

/** A product by id or name. */
export async function findProduct(client: FirmscopeClient, key: string): Promise<ProductRef> {
  const products = await listProducts(client);
  const found = products.find((p) => p.id === key) ?? products.find((p) => p.name === key);
  if (!found) throw new CliError(`no product '${key}' (products: ${products.map((p) => p.name).join(', ') || 'none'})`);
  return found;
}

export async function listImages(client: FirmscopeClient, productId: string) {
  return data(await client.GET('/api/v4/products/{productId}/images', { params: { path: { productId }, query: { status: true } } })).images;
}

/** An image by id or name, in the given product or else in any product. */
export async function findImage(client: FirmscopeClient, key: string, productKey?: string): Promise<ImageRef> {
  const products = productKey ? [await findProduct(client, productKey)] : await listProducts(client);
  for (const product of products) {
    const images = await listImages(client, product.id);
    const image = images.find((i) => i.id === key) ?? images.find((i) => i.name === key);
    if (image) return { id: image.id, name: image.name, productId: product.id, version: image.version, createTime: image.createTime };
  }
  throw new CliError(`no image '${key}'${productKey ? ` in product '${productKey}'` : ''}`);
}

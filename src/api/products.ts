// Products: list, create, get, update, archive.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/authenticate.js';
import { requireProduct } from '../services/access.js';
import { createProduct, listProducts, updateProduct } from '../services/products.js';
import type { ApiDeps } from './deps.js';
import { productOut } from './presenters.js';
import { errorResponses, Ulid } from './schemas.js';

const ProductParams = Type.Object({ productId: Ulid('Product id (the part after products/)') });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Description = Type.String({ maxLength: 4000 });

export const productRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (app, { repos }) => {
  app.get('/api/v4/products', {
    config: { permission: 'products.view' },
    schema: {
      tags: ['products'], summary: 'List products',
      querystring: Type.Object({ includeArchived: Type.Optional(Type.Boolean({ default: false })) }),
      response: { 200: Type.Object({ products: Type.Array(Type.Ref('Product')) }), ...errorResponses() },
    },
  }, async (request) => {
    const products = await listProducts(repos, principalOf(request), { includeArchived: request.query.includeArchived });
    return { products: products.map((p) => productOut(p)) };
  });

  app.post('/api/v4/products', {
    config: { permission: 'products.create' },
    schema: {
      tags: ['products'], summary: 'Create a product',
      body: Type.Object({ name: Name, description: Type.Optional(Description) }, { additionalProperties: false }),
      response: { 201: Type.Ref('Product'), ...errorResponses(415) },
    },
  }, async (request, reply) => {
    const product = await createProduct(repos, principalOf(request), request.body);
    return reply.status(201).send(productOut(product));
  });

  app.get('/api/v4/products/:productId', {
    config: { permission: 'products.view' },
    schema: { tags: ['products'], summary: 'Get a product', params: ProductParams, response: { 200: Type.Ref('Product'), ...errorResponses() } },
  }, async (request) => productOut(await requireProduct(repos, principalOf(request), request.params.productId)));

  app.patch('/api/v4/products/:productId', {
    config: { permission: 'products.update' },
    schema: {
      tags: ['products'], summary: 'Update (or archive) a product', params: ProductParams,
      body: Type.Object({ name: Type.Optional(Name), description: Type.Optional(Description), isArchived: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
      response: { 200: Type.Ref('Product'), ...errorResponses(415) },
    },
  }, async (request) => {
    return productOut(await updateProduct(repos, principalOf(request), request.params.productId, request.body), true);
  });
};

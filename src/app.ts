// The HTTP application, composed in one visible order: security plugins, documentation, identity provider,
// the signed upload endpoint, then the authenticated /api/v4 resources. Dependencies come in as options.
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { registerErrorHandler } from './api/errors.js';
import type { ApiDeps } from './api/deps.js';
import { escalationRoutes } from './api/escalations.js';
import { refuseNul } from './api/nul-guard.js';
import { requestId, requestLogger } from './api/request-logging.js';
import { fileRoutes } from './api/files.js';
import { fileTreeRoutes } from './api/file-tree.js';
import { findingRoutes } from './api/findings.js';
import { gridRoutes } from './api/grids.js';
import { imageRoutes } from './api/images.js';
import { lazySerializers, type LazySerializers } from './api/lazy-serializers.js';
import { registerMetrics } from './api/metrics.js';
import { productRoutes } from './api/products.js';
import { reportRoutes } from './api/reports.js';
import { ruleRoutes } from './api/rules.js';
import { scanRoutes } from './api/scans.js';
import { sharedSchemas } from './api/schemas.js';
import { uploadRoutes } from './api/uploads.js';
import { userRoutes } from './api/users.js';
import { webUi } from './api/web-ui.js';
import { webhookRoutes } from './api/webhooks.js';
import { protectScope } from './auth/authenticate.js';
import { identityRoutes } from './auth/identity-routes.js';
import type { TokenService } from './auth/token-service.js';
import { ENGINE_VERSION } from './engine/version.js';
import { InvalidInputError } from './errors.js';
import type { Metrics } from './services/metrics.js';

export interface AppOptions extends ApiDeps {
  tokens: TokenService;
  realm: string;
  publicClientId: string;
  /** The provider the web UI signs in with (FIRMSCOPE_UI_OIDC_*); absent means the built-in one. */
  uiOidc?: { issuer: string; clientId: string };
  /** Other origins whose pages may use the built-in provider's public client (FIRMSCOPE_CLIENT_ORIGINS). */
  clientOrigins?: string[];
  /** Requests per minute per client address (default 1200). */
  rateLimitPerMinute?: number;
  /** A pino logger; absent means no request logging (tests). */
  logger?: Logger;
  /** False while the server is still starting (it listens before it creates the first admin): /healthz answers 503. */
  ready?: () => boolean;
  /** The built web UI (default web/dist); tests point it elsewhere. */
  webUiRoot?: string;
  /** Prometheus metrics: GET /metrics and /health, and HTTP latency by route. */
  metrics?: Metrics;
  /** Response serializers, compiled at each route's first response (default: a fresh set). */
  serializers?: LazySerializers;
}

/**
 * JSON.parse reviver refusing prototype poisoning, as Fastify's own JSON parser does (this parser replaces it):
 * a `__proto__` key, or `constructor.prototype`, would otherwise become an own property that a later object
 * spread or merge turns into a prototype.
 */
function refusePoisoning(key: string, value: unknown): unknown {
  if (key === '__proto__' || (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype'))) {
    throw new InvalidInputError(`the JSON body has a ${key === '__proto__' ? '"__proto__"' : '"constructor.prototype"'} key; refused (prototype poisoning)`, [{ reason: 'invalidArgument', field: key }]);
  }
  return value;
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { tokens, realm, publicClientId, baseUrl } = options;
  const deps: ApiDeps = { repos: options.repos, blobs: options.blobs, uploads: options.uploads, baseUrl, webhookAllowPrivate: options.webhookAllowPrivate };
  const app = Fastify({
    ...(options.logger ? { loggerInstance: requestLogger(options.logger) as FastifyBaseLogger } : { logger: false }),
    // A client's x-request-id only when it is a safe token (request-logging.ts), else a new ULID.
    genReqId: requestId,
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false } },
    schemaController: { compilersFactory: { buildSerializer: (options.serializers ?? lazySerializers()).buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  registerErrorHandler(app);
  for (const schema of sharedSchemas) app.addSchema(schema);
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  // An empty JSON body (curl -X POST -H 'Content-Type: application/json') means "no body".
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text, refusePoisoning));
    } catch (error) {
      done(error instanceof InvalidInputError ? error : new InvalidInputError(`the JSON body is malformed: ${(error as Error).message}`), undefined);
    }
  });
  // NUL in any text input is a 400 naming the field, before validation, on every route (see nul-guard.ts).
  app.addHook('preValidation', async (request) => {
    refuseNul(request.params, 'params');
    refuseNul(request.query, 'query');
    refuseNul(request.body, 'body');
  });

  // 1. Security
  await app.register(helmet, { contentSecurityPolicy: false, crossOriginResourcePolicy: false });
  await app.register(rateLimit, { max: options.rateLimitPerMinute ?? 1200, timeWindow: '1 minute' });
  await app.register(formbody);

  // 2. Documentation: OpenAPI generated from the route schemas
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Firmscope API', version: ENGINE_VERSION, description: 'Firmware image security analysis: products, images, scans, findings, components and reports.' },
      servers: [{ url: baseUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          // The docs page's "Authorize" button: the identity provider's login page (code flow with PKCE).
          login: {
            type: 'oauth2',
            flows: { authorizationCode: { authorizationUrl: `${baseUrl}/realms/${realm}/protocol/openid-connect/auth`, tokenUrl: `${baseUrl}/realms/${realm}/protocol/openid-connect/token`, scopes: { openid: 'OpenID Connect sign-in' } } },
          },
        },
      },
      security: [{ bearer: [] }, { login: ['openid'] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { oauth2RedirectUrl: `${baseUrl}/docs/static/oauth2-redirect.html` },
    initOAuth: { clientId: publicClientId, usePkceWithAuthorizationCodeGrant: true, scopes: ['openid'] },
  });
  app.get('/api/v4/openapi.json', { schema: { hide: true } as Record<string, unknown> }, async () => app.swagger());
  app.get('/healthz', { schema: { hide: true } as Record<string, unknown> }, async (_request, reply) =>
    (options.ready?.() ?? true) ? { status: 'ok', version: ENGINE_VERSION } : reply.status(503).send({ status: 'starting', version: ENGINE_VERSION }));
  if (options.metrics) {
    registerMetrics(app, options.metrics, () => {
      const ready = options.ready?.() ?? true;
      return { ready, body: { status: ready ? 'ok' : 'starting', version: ENGINE_VERSION } };
    });
  }

  // 3. Identity provider
  await app.register(identityRoutes, { realm, issuer: `${baseUrl}/realms/${realm}`, publicClientId, tokens, identities: deps.repos.identities, clientOrigins: options.clientOrigins });

  // 4. Signed upload (authorised by its URL signature)
  await app.register(uploadRoutes, deps);

  // 5. Authenticated resources
  await app.register(async (api) => {
    // JSON, url-encoded forms and multipart only: anything else is 415, not a string body.
    api.removeContentTypeParser('text/plain');
    await api.register(multipart, { limits: { fileSize: deps.uploads.maxBytes, files: 2, fields: 20, parts: 30, fieldSize: 64 * 1024 } });
    protectScope(api, tokens);
    await api.register(userRoutes, { ...deps, publicClientId });
    await api.register(productRoutes, deps);
    await api.register(imageRoutes, deps);
    await api.register(fileRoutes, deps);
    await api.register(scanRoutes, deps);
    await api.register(fileTreeRoutes, deps);
    await api.register(findingRoutes, deps);
    await api.register(escalationRoutes, deps);
    await api.register(gridRoutes, deps);
    await api.register(reportRoutes, deps);
    await api.register(ruleRoutes, deps);
    await api.register(webhookRoutes, deps);
  });

  // 6. The web UI (static files and the single-page-app fallback)
  const ui = options.uiOidc ?? { issuer: `${baseUrl}/realms/${realm}`, clientId: publicClientId };
  await app.register(webUi, { authority: ui.issuer, clientId: ui.clientId, root: options.webUiRoot });

  return app;
}

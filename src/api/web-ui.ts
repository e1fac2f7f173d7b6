// The web UI (web/, built by Vite into web/dist by `npm run build`): hashed assets under /assets/ with a year's
// immutable cache, index.html (never cached) at / and, as the single-page-app fallback, at any other GET path
// that a browser asks an HTML page for outside the API, identity provider, docs and upload paths.
// /web-config.json tells the UI where to sign in.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';

export const WEB_UI_DIR = fileURLToPath(new URL('../../web/dist/', import.meta.url));

export interface WebUiOptions {
  /** The built UI (default web/dist of this package). */
  root?: string;
  /** The OpenID provider the UI signs in with, and the UI's (public) client id there. */
  authority: string;
  clientId: string;
}

/** Paths that belong to the server, never to the UI's router: an unknown one is a JSON 404. */
const SERVER_PATHS = /^\/(api|realms|docs|uploads|healthz|assets)(\/|$|\?)/;

const CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:",
  "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'", "object-src 'none'",
].join('; ');

export const webUi: FastifyPluginAsync<WebUiOptions> = async (app, options) => {
  const root = options.root ?? WEB_UI_DIR;
  const indexFile = join(root, 'index.html');
  const authorityOrigin = new URL(options.authority).origin;
  const csp = CSP.replace("connect-src 'self'", `connect-src 'self' ${authorityOrigin}`);
  const hide = { hide: true } as Record<string, unknown>;

  app.get('/web-config.json', { schema: hide }, async (_request, reply) => {
    void reply.header('cache-control', 'no-cache');
    return { authority: options.authority, clientId: options.clientId };
  });

  if (!existsSync(indexFile)) {
    // A checkout without `npm run build` (tests of the API alone): say how to get the UI instead of a bare 404.
    app.get('/', { schema: hide }, async (_request, reply) =>
      reply.status(503).type('text/plain; charset=utf-8').send('The web UI is not built: run `npm run build` (npm ci runs it), then restart.\n'));
    return;
  }
  const index = readFileSync(indexFile);
  const sendIndex = (reply: FastifyReply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').header('content-security-policy', csp).header('referrer-policy', 'no-referrer').send(index);

  await app.register(fastifyStatic, {
    root: join(root, 'assets'), prefix: '/assets/', decorateReply: false, index: false, wildcard: true,
    immutable: true, maxAge: '365d', cacheControl: true,
  });
  app.get('/', { schema: hide }, async (_request, reply) => sendIndex(reply));
  app.get('/*', { schema: hide }, async (request: FastifyRequest, reply) => {
    const wantsPage = (request.headers.accept ?? '').includes('text/html');
    if (!wantsPage || SERVER_PATHS.test(request.url)) return reply.callNotFound();
    return sendIndex(reply);
  });
};

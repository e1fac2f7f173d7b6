// Bearer-token authentication and per-route permissions for the /api/v4 scope. Every route there must
// declare `config.permission`; registering one without it fails at start-up, so none is open by accident.
// The permission is also published in the OpenAPI document as the operation's `x-permission`.
import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify';
import { ForbiddenError, UnauthenticatedError } from '../errors.js';
import { roleAllows, type Permission } from './permissions.js';
import type { Principal } from './principal.js';
import type { TokenService } from './token-service.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyContextConfig {
    permission?: Permission;
  }
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthenticatedError('authentication required');
  return request.principal;
}

/** Installs the hooks on `scope`; call before registering the scope's routes. */
export function protectScope(scope: FastifyInstance, tokens: TokenService): void {
  scope.addHook('onRoute', (route) => {
    const permission = (route.config as { permission?: Permission } | undefined)?.permission;
    if (!permission) throw new Error(`route ${String(route.method)} ${route.url} declares no permission`);
    // The OpenAPI document carries it as `x-permission`, from this one declaration (the access-control test reads it).
    route.schema = { ...route.schema, 'x-permission': permission } as FastifySchema;
  });

  scope.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (!header) throw new UnauthenticatedError('missing Authorization header; send "Authorization: Bearer <access_token>"');
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw new UnauthenticatedError('the Authorization header must be "Bearer <access_token>"');
    const principal = await tokens.authenticate(match[1]!);
    request.principal = principal;
    const permission = request.routeOptions.config.permission;
    if (!permission || !roleAllows(principal.role, permission)) {
      const resourceName = request.url.split('?')[0]!.replace(/^\/api\/v4\//, '');
      throw new ForbiddenError(
        `role '${principal.role}' lacks permission '${permission ?? 'unknown'}'; ask an organisation admin for a role that has it`,
        permission,
        resourceName,
      );
    }
  });
}

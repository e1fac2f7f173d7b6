// Users, roles and machine clients of the caller's organisation.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/authenticate.js';
import { ROLE_DESCRIPTIONS, ROLE_PERMISSIONS, ROLES } from '../auth/permissions.js';
import { createOrgClient, createOrgUser, currentUser, listOrgClients, listOrgUsers, type Organisation, type User } from '../services/users.js';
import type { ApiDeps } from './deps.js';
import { errorResponses } from './schemas.js';

const UserSchema = Type.Object({
  id: Type.String(), email: Type.String(), role: Type.String(), status: Type.String(), createTime: Type.String(),
  organisation: Type.Object({ id: Type.String(), name: Type.String() }), permissions: Type.Optional(Type.Array(Type.String())),
});
const ClientSchema = Type.Object({ clientId: Type.String(), name: Type.String(), role: Type.String(), createTime: Type.String() });
const Role = Type.Union(ROLES.map((r) => Type.Literal(r)));

export interface UserRoutesOptions extends ApiDeps {
  /** The public client of the password grant, which no machine client may take as its id or name. */
  publicClientId: string;
}

function userOut(user: User, org: Organisation, withPermissions = false) {
  return {
    id: user.id, email: user.email, role: user.role, status: user.status, createTime: user.createTime,
    organisation: { id: org.id, name: org.name }, ...(withPermissions ? { permissions: ROLE_PERMISSIONS[user.role] } : {}),
  };
}

export const userRoutes: FastifyPluginAsyncTypebox<UserRoutesOptions> = async (app, { repos, publicClientId }) => {
  app.get('/api/v4/users/me', {
    config: { permission: 'users.view' },
    schema: { tags: ['users'], summary: 'The calling user, with role and permissions', response: { 200: UserSchema, ...errorResponses() } },
  }, async (request) => {
    const { user, org } = await currentUser(repos, principalOf(request));
    return userOut(user, org, true);
  });

  app.get('/api/v4/users', {
    config: { permission: 'users.manage' },
    schema: { tags: ['users'], summary: 'Users of the organisation', response: { 200: Type.Object({ users: Type.Array(UserSchema) }), ...errorResponses() } },
  }, async (request) => {
    const { users, org } = await listOrgUsers(repos, principalOf(request));
    return { users: users.map((u) => userOut(u, org)) };
  });

  app.post('/api/v4/users', {
    config: { permission: 'users.manage' },
    schema: {
      tags: ['users'], summary: 'Add a user to the organisation',
      body: Type.Object({ email: Type.String({ pattern: '^[^@\\s]+@[^@\\s]+$', maxLength: 254 }), password: Type.String({ minLength: 8, maxLength: 256 }), role: Role }, { additionalProperties: false }),
      response: { 201: UserSchema, ...errorResponses(409, 415) },
    },
  }, async (request, reply) => {
    const { user, org } = await createOrgUser(repos, principalOf(request), request.body);
    return reply.status(201).send(userOut(user, org));
  });

  app.get('/api/v4/roles', {
    config: { permission: 'users.view' },
    schema: {
      tags: ['users'], summary: 'Roles and the permissions they grant',
      response: { 200: Type.Object({ roles: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), permissions: Type.Array(Type.String()) })) }), ...errorResponses() },
    },
  }, async () => ({ roles: ROLES.map((name) => ({ name, description: ROLE_DESCRIPTIONS[name], permissions: ROLE_PERMISSIONS[name] })) }));

  app.get('/api/v4/clients', {
    config: { permission: 'clients.manage' },
    schema: {
      tags: ['users'], summary: 'Machine clients of the organisation (without secrets: a secret is shown only when its client is created)',
      response: { 200: Type.Object({ clients: Type.Array(ClientSchema) }), ...errorResponses() },
    },
  }, async (request) => ({
    clients: (await listOrgClients(repos, principalOf(request))).map((c) => ({ clientId: c.clientId, name: c.name, role: c.role, createTime: c.createTime })),
  }));

  app.post('/api/v4/clients', {
    config: { permission: 'clients.manage' },
    schema: {
      tags: ['users'], summary: 'Create a machine client for the client_credentials grant (the secret is shown once)',
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), role: Role, clientId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]{3,64}$' })) }, { additionalProperties: false }),
      response: { 201: Type.Object({ clientId: Type.String(), clientSecret: Type.String(), name: Type.String(), role: Type.String(), createTime: Type.String() }), ...errorResponses(409, 415) },
    },
  }, async (request, reply) => {
    const { client, clientSecret } = await createOrgClient(repos, principalOf(request), { ...request.body, publicClientId });
    return reply.status(201).send({ clientId: client.clientId, clientSecret, name: client.name, role: client.role, createTime: client.createTime });
  });
};

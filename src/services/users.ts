// The API's view of the caller's organisation: its users (each with the organisation it shows) and new users
// and machine clients (identity-admin.ts does the work, shared with the CLI).
import type { Principal } from '../auth/principal.js';
import type { Client, Organisation, User } from '../store/identity.repository.js';

export type { Organisation, User };
import { NotFoundError } from '../errors.js';
import { createClient, createUser } from './identity-admin.js';
import type { Repositories } from '../store/repositories.js';

export interface UsersOfOrg {
  org: Organisation;
  users: User[];
}

async function organisation(repos: Repositories, orgId: string): Promise<Organisation> {
  const org = await repos.identities.findOrg(orgId);
  if (!org) throw new NotFoundError('organisation not found');
  return org;
}

export async function currentUser(repos: Repositories, principal: Principal): Promise<{ org: Organisation; user: User }> {
  const user = await repos.identities.findUser(principal.userId);
  if (!user) throw new NotFoundError('user not found');
  return { org: await organisation(repos, user.orgId), user };
}

export async function listOrgUsers(repos: Repositories, principal: Principal): Promise<UsersOfOrg> {
  const users = await repos.identities.listUsers(principal.orgId);
  return { org: await organisation(repos, principal.orgId), users };
}

export async function createOrgUser(repos: Repositories, principal: Principal, input: { email: string; role: string; password: string }): Promise<{ org: Organisation; user: User }> {
  const user = await createUser(repos.identities, { orgId: principal.orgId, ...input });
  return { org: await organisation(repos, user.orgId), user };
}

/** The organisation's machine clients (never their secret hashes: callers present only the public fields). */
export function listOrgClients(repos: Repositories, principal: Principal): Promise<Client[]> {
  return repos.identities.listClients(principal.orgId);
}

export function createOrgClient(
  repos: Repositories, principal: Principal, input: { name: string; role: string; clientId?: string; publicClientId: string },
): Promise<{ client: Client; clientSecret: string }> {
  return createClient(repos.identities, { orgId: principal.orgId, ...input });
}

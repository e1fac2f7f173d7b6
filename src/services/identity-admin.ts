// Operator use cases shared by the CLI (`firmscope users|clients|orgs`): organisations, users and machine
// clients, with hashed secrets; generated secrets are returned once and never stored in clear.
import { hashSecret, randomSecret } from '../auth/passwords.js';
import { isRole, ROLES } from '../auth/permissions.js';
import type { IdentityRepository } from '../store/identity.repository.js';
import type { Role } from '../store/schema.js';
import { InvalidInputError, NotFoundError } from './errors.js';

function role(value: string): Role {
  if (!isRole(value)) throw new InvalidInputError(`unknown role '${value}'; use one of ${ROLES.join(', ')}`);
  return value;
}

async function orgId(identities: IdentityRepository, name: string): Promise<string> {
  const org = await identities.findOrgByName(name);
  if (!org) throw new NotFoundError(`organisation '${name}' does not exist; create it with: firmscope orgs add ${name}`);
  return org.id;
}

export async function addUser(identities: IdentityRepository, input: { email: string; role: string; password?: string; org: string }) {
  if (!/^[^@\s]+@[^@\s]+$/.test(input.email)) throw new InvalidInputError(`'${input.email}' is not an e-mail address`);
  if (input.password !== undefined && input.password.length < 8) throw new InvalidInputError('the password needs at least 8 characters');
  const password = input.password ?? randomSecret(18);
  const user = await identities.createUser({ orgId: await orgId(identities, input.org), email: input.email, role: role(input.role), passwordHash: await hashSecret(password) });
  return { user, generatedPassword: input.password === undefined ? password : undefined };
}

export async function addClient(identities: IdentityRepository, input: { name: string; role: string; org: string; clientId?: string }) {
  const clientId = input.clientId ?? `${input.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'client'}-${randomSecret(6).toLowerCase().replace(/[^a-z0-9]/g, 'x')}`;
  if (!/^[A-Za-z0-9._-]{3,64}$/.test(clientId)) throw new InvalidInputError(`client id '${clientId}' must be 3-64 letters, digits, '.', '_' or '-'`);
  const secret = randomSecret(32);
  const client = await identities.createClient({ orgId: await orgId(identities, input.org), name: input.name, clientId, role: role(input.role), secretHash: await hashSecret(secret) });
  return { client, clientSecret: secret };
}

export async function addOrg(identities: IdentityRepository, input: { name: string; adminEmail: string; adminPassword?: string }) {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(input.name)) throw new InvalidInputError(`organisation name '${input.name}' must be 1-64 letters, digits, '.', '_' or '-'`);
  const org = await identities.createOrg(input.name);
  const { user, generatedPassword } = await addUser(identities, { email: input.adminEmail, role: 'admin', password: input.adminPassword, org: input.name });
  return { org, admin: user, generatedPassword };
}

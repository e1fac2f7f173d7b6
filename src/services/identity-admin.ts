// Identity use cases shared by the API (`/api/v4/users`, `/api/v4/clients`) and the CLI (`firmscope
// users|clients|orgs`): organisations, users and machine clients, with hashed secrets; generated secrets are
// returned once and never stored in clear.
import { hashSecret, randomSecret } from '../auth/passwords.js';
import { isRole, ROLES } from '../auth/permissions.js';
import { SignInThrottle } from '../auth/sign-in-throttle.js';
import type { IdentityRepository } from '../store/identity.repository.js';
import type { Role } from '../store/schema.js';
import { InvalidInputError, NotFoundError } from '../errors.js';

function role(value: string): Role {
  if (!isRole(value)) throw new InvalidInputError(`unknown role '${value}'; use one of ${ROLES.join(', ')}`);
  return value;
}

async function orgId(identities: IdentityRepository, name: string): Promise<string> {
  const org = await identities.findOrgByName(name);
  if (!org) throw new NotFoundError(`organisation '${name}' does not exist; create it with: firmscope orgs add ${name}`);
  return org.id;
}

/**
 * Checks the e-mail of a new account. The `.invalid` top-level domain (RFC 2606) is reserved for the accounts the
 * service makes itself (machine clients' service accounts, external users without a verified e-mail).
 */
function accountEmail(email: string): string {
  if (!/^[^@\s]+@[^@\s]+$/.test(email) || email.length > 254) throw new InvalidInputError(`'${email}' is not an e-mail address`);
  if (/\.invalid$/i.test(email)) throw new InvalidInputError(`'${email}': the domain .invalid is reserved for accounts the service makes itself`);
  return email;
}

/** A user with a password in the organisation `orgId`. */
export async function createUser(identities: IdentityRepository, input: { orgId: string; email: string; role: string; password: string }) {
  if (input.password.length < 8) throw new InvalidInputError('the password needs at least 8 characters');
  return identities.createUser({ orgId: input.orgId, email: accountEmail(input.email), role: role(input.role), passwordHash: await hashSecret(input.password) });
}

/**
 * A machine client of the organisation `orgId`; its secret is returned once. `publicClientId`, the client of the
 * password grant, can be neither its id nor its name.
 */
export async function createClient(
  identities: IdentityRepository,
  input: { orgId: string; name: string; role: string; clientId?: string; publicClientId: string },
) {
  const clientId = input.clientId ?? `${input.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'client'}-${randomSecret(6).toLowerCase().replace(/[^a-z0-9]/g, 'x')}`;
  if (!/^[A-Za-z0-9._-]{3,64}$/.test(clientId)) throw new InvalidInputError(`client id '${clientId}' must be 3-64 letters, digits, '.', '_' or '-'`);
  const reserved = input.publicClientId.toLowerCase();
  if (clientId.toLowerCase() === reserved || input.name.trim().toLowerCase() === reserved) {
    throw new InvalidInputError(`'${input.publicClientId}' is the public client of the password grant; give the machine client another name and id`);
  }
  const secret = randomSecret(32);
  const client = await identities.createClient({ orgId: input.orgId, name: input.name, clientId, role: role(input.role), secretHash: await hashSecret(secret) });
  return { client, clientSecret: secret };
}

export async function addUser(identities: IdentityRepository, input: { email: string; role: string; password?: string; org: string }) {
  const password = input.password ?? randomSecret(18);
  const user = await createUser(identities, { orgId: await orgId(identities, input.org), email: input.email, role: input.role, password });
  return { user, generatedPassword: input.password === undefined ? password : undefined };
}

export async function addClient(identities: IdentityRepository, input: { name: string; role: string; org: string; clientId?: string; publicClientId: string }) {
  return createClient(identities, { ...input, orgId: await orgId(identities, input.org) });
}

export async function addOrg(identities: IdentityRepository, input: { name: string; adminEmail: string; adminPassword?: string }) {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(input.name)) throw new InvalidInputError(`organisation name '${input.name}' must be 1-64 letters, digits, '.', '_' or '-'`);
  const org = await identities.createOrg(input.name);
  const { user, generatedPassword } = await addUser(identities, { email: input.adminEmail, role: 'admin', password: input.adminPassword, org: input.name });
  return { org, admin: user, generatedPassword };
}

/**
 * Ends the sign-in delay or lock of an e-mail (see auth/sign-in-throttle.ts). With `org`, the e-mail must be a
 * user of that organisation. Returns whether there were failures to clear.
 */
export async function unlockUser(identities: IdentityRepository, input: { email: string; org?: string }): Promise<boolean> {
  if (input.org !== undefined) {
    const id = await orgId(identities, input.org);
    const user = await identities.findUserByEmail(input.email);
    if (!user || user.orgId !== id) throw new NotFoundError(`organisation '${input.org}' has no user '${input.email}'`);
  }
  return new SignInThrottle(identities).unlock(input.email);
}

// First start: organisation `default` and its first admin (from the configuration, or admin@localhost
// with a random password that is printed once).
import { hashSecret, randomSecret } from '../auth/passwords.js';
import type { IdentityRepository } from '../store/identity.repository.js';

export interface BootstrapResult {
  orgId: string;
  /** Present only when this call created the admin with a generated password. */
  generated?: { email: string; password: string };
  createdAdmin?: string;
}

export async function bootstrap(identities: IdentityRepository, admin: { email?: string; password?: string }): Promise<BootstrapResult> {
  const org = await ensureDefaultOrg(identities);
  if ((await identities.countUsers(org.id)) > 0) return { orgId: org.id };
  const email = admin.email ?? 'admin@localhost';
  if (await identities.findUserByEmail(email)) return { orgId: org.id };
  const password = admin.password ?? randomSecret(18);
  await identities.createUser({ orgId: org.id, email, role: 'admin', passwordHash: await hashSecret(password) });
  return { orgId: org.id, createdAdmin: email, ...(admin.password ? {} : { generated: { email, password } }) };
}

/** Organisation `default`, created when missing. */
export async function ensureDefaultOrg(identities: IdentityRepository) {
  const existing = await identities.findOrgByName('default');
  if (existing) return existing;
  // Two processes starting at once (serve and worker) may race to create it.
  try {
    return await identities.createOrg('default');
  } catch (error) {
    const existing = await identities.findOrgByName('default');
    if (existing) return existing;
    throw error;
  }
}

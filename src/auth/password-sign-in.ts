// One password check for the password grant and the login page: the per-account throttle, then the hash.
import type { IdentityRepository, User } from '../store/identity.repository.js';
import { verifySecret } from './passwords.js';
import type { SignInThrottle } from './sign-in-throttle.js';

/** Longest account name looked up (an e-mail address has at most 254 characters). */
const MAX_USERNAME = 254;

/**
 * The active person account with this e-mail and password, or undefined. One answer for a wrong password, an
 * unknown or disabled account, and an attempt refused while the account waits or is locked (sign-in-throttle.ts):
 * no oracle of which accounts exist.
 */
export async function signInWithPassword(throttle: SignInThrottle, identities: IdentityRepository, username: string, password: string): Promise<User | undefined> {
  if (username.length > MAX_USERNAME) return undefined;
  return throttle.attempt(username, async () => {
    const found = await identities.findUserByEmail(username);
    const ok = await verifySecret(found?.kind === 'user' ? found.passwordHash : null, password);
    return found && ok && found.status === 'active' ? found : undefined;
  });
}

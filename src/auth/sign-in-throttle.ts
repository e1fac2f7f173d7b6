// Per-account protection of the password grant against guessing. The counters live in the database
// (sign_in_failures), so every server process shares them; the per-address request limit (@fastify/rate-limit)
// applies on top. An account name that matches no user is counted exactly like a real one, and a refused attempt
// answers exactly like a wrong password: neither the answer nor its timing tells whether an account exists.
import type { IdentityRepository } from '../store/identity.repository.js';

/** The thresholds (documented in the README, "Sign-in protection"). */
export const SIGN_IN_PROTECTION = {
  /** Failures in a row that cost nothing more than the wrong answer. */
  freeFailures: 5,
  /** After the freeFailures-th failure the next attempt waits this long; each further failure doubles it... */
  firstDelaySeconds: 2,
  /** ...up to this cap. */
  maxDelaySeconds: 5 * 60,
  /** From this many failures in a row, the account is locked... */
  lockAfterFailures: 20,
  /** ...for this long after each further failure (an admin ends it early: `firmscope users unlock`). */
  lockSeconds: 15 * 60,
  /** Failures older than this, of an account that is not blocked, are forgotten. */
  forgetAfterSeconds: 24 * 3600,
} as const;

/** Seconds before the next attempt may be checked, after `failures` failures in a row. */
export function signInDelaySeconds(failures: number): number {
  const p = SIGN_IN_PROTECTION;
  if (failures >= p.lockAfterFailures) return p.lockSeconds;
  if (failures < p.freeFailures) return 0;
  return Math.min(p.firstDelaySeconds * 2 ** (failures - p.freeFailures), p.maxDelaySeconds);
}

/** The key of an account name: the e-mail as the password grant looks it up. */
export function signInAccount(username: string): string {
  return username.trim().toLowerCase();
}

export class SignInThrottle {
  constructor(
    private readonly identities: IdentityRepository,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Runs `check` (verify the password) unless the account must wait; counts a failed or refused check. Returns
   * what `check` returned when it succeeded, undefined otherwise: a refused attempt is indistinguishable from a
   * wrong password.
   */
  async attempt<T>(username: string, check: () => Promise<T | undefined>): Promise<T | undefined> {
    const account = signInAccount(username);
    const now = this.now();
    const at = new Date(now).toISOString();
    let state = await this.identities.signInFailures(account);
    if (state && state.blockedUntil > at) return undefined;
    if (state && Date.parse(state.lastFailureTime) < now - SIGN_IN_PROTECTION.forgetAfterSeconds * 1000) {
      await this.identities.clearSignInFailures(account);
      state = undefined;
    }

    if (state && state.failures >= SIGN_IN_PROTECTION.freeFailures) {
      // Delayed regime: this attempt is counted (and the next one delayed) before the password is checked, and
      // only one of concurrent attempts gets its check.
      const failures = state.failures + 1;
      const blockedUntil = new Date(now + signInDelaySeconds(failures) * 1000).toISOString();
      if (!(await this.identities.claimSignInAttempt(account, state.failures, { failures, now: at, blockedUntil }))) return undefined;
      const result = await check();
      if (result !== undefined) await this.identities.clearSignInFailures(account);
      return result;
    }

    const result = await check();
    if (result !== undefined) {
      if (state) await this.identities.clearSignInFailures(account);
      return result;
    }
    const failures = await this.identities.addSignInFailure(account, at);
    const delay = signInDelaySeconds(failures);
    if (delay > 0) await this.identities.blockSignIn(account, failures, new Date(now + delay * 1000).toISOString());
    await this.identities.pruneSignInFailures(new Date(now - SIGN_IN_PROTECTION.forgetAfterSeconds * 1000).toISOString(), at);
    return undefined;
  }

  /** Ends a delay or lock (admin unlock); true when the account had failures. */
  unlock(username: string): Promise<boolean> {
    return this.identities.clearSignInFailures(signInAccount(username));
  }
}

// Per-account sign-in protection (sign-in-throttle.ts) on both databases, with a controlled clock: free
// failures, growing delays, the lock, one check for concurrent attempts, forgetting, unlocking.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SIGN_IN_PROTECTION as P, signInDelaySeconds, SignInThrottle } from '../../src/auth/sign-in-throttle.js';
import { IdentityRepository } from '../../src/store/identity.repository.js';
import { describeEachDatabase } from '../support/databases.js';

describe('signInDelaySeconds', () => {
  it('is free for the first failures, then doubles from 2 s up to 5 min, then locks for 15 min', () => {
    const delays = Array.from({ length: 22 }, (_, failures) => signInDelaySeconds(failures));
    expect(delays).toEqual([0, 0, 0, 0, 0, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300, 300, 300, 300, 300, 900, 900]);
  });
});

describeEachDatabase('sign-in throttle', (get) => {
  let identities: IdentityRepository;
  let now = Date.parse('2026-11-25T12:00:00.000Z');
  let throttle: SignInThrottle;
  let checks = 0;
  const wrong = async () => {
    checks += 1;
    return undefined;
  };
  const right = async () => {
    checks += 1;
    return 'signed in';
  };
  const advance = (seconds: number) => {
    now += seconds * 1000;
  };

  beforeAll(() => {
    identities = new IdentityRepository(get().db);
    throttle = new SignInThrottle(identities, () => now);
  });
  beforeEach(() => {
    checks = 0;
  });

  it('checks the first failures at once, then refuses without checking until each growing delay has passed', async () => {
    for (let i = 0; i < P.freeFailures; i++) expect(await throttle.attempt('Ann@Example.test', wrong)).toBeUndefined();
    expect(checks).toBe(5);
    expect(await throttle.attempt('ann@example.test', right)).toBeUndefined();
    advance(1.9);
    expect(await throttle.attempt('ann@example.test', right)).toBeUndefined();
    expect(checks).toBe(5);
    advance(0.1);
    expect(await throttle.attempt('ann@example.test', wrong)).toBeUndefined();
    expect(checks).toBe(6);
    advance(3.9);
    expect(await throttle.attempt('ann@example.test', right)).toBeUndefined();
    advance(0.1);
    expect(await throttle.attempt('ann@example.test', right)).toBe('signed in');
    expect(checks).toBe(7);
    expect(await identities.signInFailures('ann@example.test')).toBeUndefined();
  });

  it('locks the account for 15 minutes after 20 failures in a row; an admin unlock ends it', async () => {
    for (let failures = 0; failures < P.lockAfterFailures; failures++) {
      advance(signInDelaySeconds(failures));
      expect(await throttle.attempt('bob@example.test', wrong)).toBeUndefined();
    }
    expect(checks).toBe(20);
    expect(await identities.signInFailures('bob@example.test')).toMatchObject({ failures: 20, blockedUntil: new Date(now + 900_000).toISOString() });
    advance(899);
    expect(await throttle.attempt('bob@example.test', right)).toBeUndefined();
    expect(checks).toBe(20);
    advance(1);
    // After the lock, each further failure locks again.
    expect(await throttle.attempt('bob@example.test', wrong)).toBeUndefined();
    expect(await identities.signInFailures('bob@example.test')).toMatchObject({ failures: 21, blockedUntil: new Date(now + 900_000).toISOString() });
    expect(await throttle.unlock('BOB@example.test')).toBe(true);
    expect(await throttle.attempt('bob@example.test', right)).toBe('signed in');
    expect(await throttle.unlock('bob@example.test')).toBe(false);
  });

  it('gives concurrent attempts of a delayed account one password check', async () => {
    for (let i = 0; i < P.freeFailures; i++) await throttle.attempt('carol@example.test', wrong);
    advance(2);
    checks = 0;
    await Promise.all(Array.from({ length: 8 }, () => throttle.attempt('carol@example.test', wrong)));
    expect(checks).toBe(1);
    expect(await identities.signInFailures('carol@example.test')).toMatchObject({ failures: 6 });
  });

  it('forgets failures a day old, and removes such rows of other accounts', async () => {
    for (let i = 0; i < 4; i++) await throttle.attempt('dave@example.test', wrong);
    await throttle.attempt('nobody@example.test', wrong);
    advance(P.forgetAfterSeconds + 1);
    await throttle.attempt('dave@example.test', wrong);
    expect(await identities.signInFailures('dave@example.test')).toMatchObject({ failures: 1 });
    expect(await identities.signInFailures('nobody@example.test')).toBeUndefined();
  });
});

// Password and client-secret hashing with argon2id.
import { randomBytes } from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';

const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 };
// Verified against when the account does not exist, so a wrong e-mail costs as much time as a wrong password.
let dummy: Promise<string> | undefined;

export function hashSecret(secret: string): Promise<string> {
  return hash(secret, OPTIONS);
}

export async function verifySecret(stored: string | null | undefined, secret: string): Promise<boolean> {
  if (!stored) {
    dummy ??= hash('not-a-real-password', OPTIONS);
    await verify(await dummy, secret).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, secret);
  } catch {
    return false;
  }
}

/** A random secret for generated passwords and client secrets (URL-safe, 32 characters). */
export function randomSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

// The HMAC secret of upload URLs: from the configuration, or generated once and kept in the data folder.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export async function resolveUploadSecret(configured: string | undefined, dataDir: string): Promise<string> {
  if (configured) return configured;
  const path = join(dataDir, 'upload-secret');
  try {
    const stored = (await readFile(path, 'utf8')).trim();
    if (stored.length >= 32) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    await writeFile(path, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch {
    // Another process wrote it first.
    return (await readFile(path, 'utf8')).trim();
  }
}

// Starts the real service (HTTP on an ephemeral port, in-process workers) on a fresh data folder and
// database, and gives tests a fetch-based client with tokens.
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { freshPostgresUrl } from './databases.js';
import { tempDir } from './temp-dirs.js';

export const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
export const REALM_TOKEN_PATH = '/realms/FirmscopeRealm/protocol/openid-connect/token';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface TestServer {
  base: string;
  config: Config;
  server: RunningServer;
  dataDir: string;
  databaseUrl?: string;
  close(): Promise<void>;
}

/**
 * The configuration of a test service over `dataDir`: on 127.0.0.1 at `port` (a free one unless given), admin
 * ADMIN, quick job polls, silent logs; `env` adds or overrides settings (DATABASE_URL, FIRMSCOPE_WORKERS, ...).
 * For tests that call startServer themselves; startTestServer uses it too.
 */
export async function testConfig(dataDir: string, env: Record<string, string> = {}, port?: number): Promise<Config> {
  const at = port ?? (await freePort());
  return loadConfig({
    PORT: String(at), HOST: '127.0.0.1', FIRMSCOPE_BASE_URL: `http://127.0.0.1:${at}`, FIRMSCOPE_DATA_DIR: dataDir, FIRMSCOPE_ADMIN_EMAIL: ADMIN.email,
    FIRMSCOPE_ADMIN_PASSWORD: ADMIN.password, FIRMSCOPE_JOB_POLL_MS: '100', LOG_LEVEL: 'silent', ...env,
  });
}

export async function startTestServer(options: { env?: Record<string, string>; postgres?: boolean; logger?: Logger } = {}): Promise<TestServer> {
  const dataDir = tempDir('firmscope-server');
  const pg = options.postgres ? await freshPostgresUrl() : undefined;
  const config = await testConfig(dataDir, { ...(pg ? { DATABASE_URL: pg.url } : {}), ...options.env });
  const server = await startServer(config, options.logger);
  return {
    base: config.baseUrl, config, server, dataDir, databaseUrl: pg?.url,
    async close() {
      await server.close();
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function passwordToken(base: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${base}${REALM_TOKEN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', scope: 'openid', client_id: 'FirmscopeClient', username: email, password }),
  });
  const body = (await response.json()) as { access_token?: string; error_description?: string };
  if (!response.ok || !body.access_token) throw new Error(`token request failed: ${response.status} ${body.error_description}`);
  return body.access_token;
}

/** JSON request helper: returns status and parsed body (or text). */
export async function call(base: string, token: string | undefined, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const init: RequestInit = { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } };
  if (body !== undefined) {
    if (body instanceof FormData || body instanceof Uint8Array || typeof body === 'string') init.body = body as RequestInit['body'];
    else {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
  }
  const response = await fetch(`${base}${path}`, init);
  const type = response.headers.get('content-type') ?? '';
  const data: any = type.includes('json') ? await response.json() : Buffer.from(await response.arrayBuffer());
  return { status: response.status, body: data, headers: response.headers };
}

export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Uploads `bytes` as image `imageName` (file name `fileName`) of the product in one request and waits until its
 * scan completed; a failed scan fails with its state. Returns the image id.
 */
export async function uploadAndScan(base: string, token: string, productId: string, imageName: string, fileName: string, bytes: Buffer): Promise<string> {
  const form = new FormData();
  form.set('imageName', imageName);
  form.set('file', new Blob([bytes]), fileName);
  const upload = await call(base, token, 'POST', `/api/v4/products/${productId}/images:upload`, form);
  if (upload.status !== 201) throw new Error(`upload failed: ${upload.status} ${JSON.stringify(upload.body)}`);
  const imageId: string = upload.body.id;
  await waitFor(async () => {
    const r = await call(base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/scans?status=true`);
    const type = r.body.scans?.[0]?.latestScanState?.type;
    if (type === 'failed') throw new Error(`scan failed: ${JSON.stringify(r.body.scans[0].latestScanState)}`);
    return type === 'completed' ? true : undefined;
  }, 120_000);
  return imageId;
}

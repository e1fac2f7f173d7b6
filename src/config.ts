// Configuration is parsed and validated once at start; every bad variable is listed in one error.
// Nothing else reads process.env.
import { resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  /** Folder of the SQLite database, blobs and scan work folders. */
  dataDir: string;
  /** Absolute base URL of this service (upload URLs, token issuer); no trailing slash. */
  baseUrl: string;
  /** PostgreSQL URL; absent means the SQLite file in dataDir. */
  databaseUrl?: string;
  adminEmail?: string;
  adminPassword?: string;
  realm: string;
  /** Public client id for the password grant. */
  publicClientId: string;
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
  uploadUrlSeconds: number;
  /** HMAC secret of upload URLs; absent means a random one persisted in dataDir. */
  uploadSecret?: string;
  /** Scan workers inside `serve` (0 = run only separate `firmscope worker` processes). */
  workers: number;
  maxUploadBytes: number;
  /** Lease of a claimed job; a worker silent for this long is presumed dead and its job is retried. */
  jobLeaseSeconds: number;
  /** How often an idle worker looks for due jobs. */
  jobPollMs: number;
  /** External OIDC issuer (Keycloak realm URL) whose tokens the API also accepts, verified by its JWKS. */
  externalIssuer?: string;
  externalJwksUrl?: string;
  /** Keycloak client whose client roles map to ours; realm roles always map. */
  externalAudience?: string;
  /** Organisation that users of the external issuer belong to. */
  externalOrg: string;
  logLevel: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const str = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${name}=${raw}: expected an integer from ${min} to ${max}`);
      return fallback;
    }
    return value;
  };
  const url = (name: string): string | undefined => {
    const raw = str(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!/^https?:$/.test(parsed.protocol)) throw new Error('not http(s)');
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(`${name}=${raw}: expected an absolute http(s) URL`);
      return undefined;
    }
  };
  const name = (key: string, fallback: string): string => {
    const raw = str(key) ?? fallback;
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(raw)) {
      problems.push(`${key}=${raw}: expected 1-64 letters, digits, '.', '_' or '-'`);
      return fallback;
    }
    return raw;
  };

  const port = int('PORT', 8080, 0, 65535);
  const databaseUrl = str('DATABASE_URL');
  if (databaseUrl && !/^(postgres(ql)?:\/\/|sqlite:)/i.test(databaseUrl)) {
    problems.push(`DATABASE_URL: expected postgres://user@host:port/database (or sqlite:PATH)`);
  }
  const adminEmail = str('FIRMSCOPE_ADMIN_EMAIL');
  if (adminEmail && !/^[^@\s]+@[^@\s]+$/.test(adminEmail)) problems.push(`FIRMSCOPE_ADMIN_EMAIL=${adminEmail}: expected an e-mail address`);
  const adminPassword = str('FIRMSCOPE_ADMIN_PASSWORD');
  if (adminPassword && adminPassword.length < 8) problems.push('FIRMSCOPE_ADMIN_PASSWORD: expected at least 8 characters');
  if (Boolean(adminEmail) !== Boolean(adminPassword)) {
    problems.push('FIRMSCOPE_ADMIN_EMAIL and FIRMSCOPE_ADMIN_PASSWORD: set both or neither');
  }
  const uploadSecret = str('FIRMSCOPE_UPLOAD_SECRET');
  if (uploadSecret && uploadSecret.length < 16) problems.push('FIRMSCOPE_UPLOAD_SECRET: expected at least 16 characters');
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
  const logLevel = str('LOG_LEVEL') ?? 'info';
  if (!levels.includes(logLevel)) problems.push(`LOG_LEVEL=${logLevel}: expected one of ${levels.join(', ')}`);

  const config: Config = {
    port,
    host: str('HOST') ?? '0.0.0.0',
    dataDir: resolve(str('FIRMSCOPE_DATA_DIR') ?? './data'),
    baseUrl: url('FIRMSCOPE_BASE_URL') ?? `http://localhost:${port}`,
    databaseUrl,
    adminEmail,
    adminPassword,
    realm: name('FIRMSCOPE_REALM', 'FirmscopeRealm'),
    publicClientId: name('FIRMSCOPE_CLIENT_ID', 'FirmscopeClient'),
    accessTokenSeconds: int('FIRMSCOPE_ACCESS_TOKEN_SECONDS', 1800, 30, 86_400),
    refreshTokenSeconds: int('FIRMSCOPE_REFRESH_TOKEN_SECONDS', 8 * 3600, 60, 30 * 86_400),
    uploadUrlSeconds: int('FIRMSCOPE_UPLOAD_URL_SECONDS', 3600, 10, 7 * 86_400),
    uploadSecret,
    workers: int('FIRMSCOPE_WORKERS', 1, 0, 64),
    maxUploadBytes: int('FIRMSCOPE_MAX_UPLOAD_BYTES', 4 * 1024 ** 3, 1, Number.MAX_SAFE_INTEGER),
    jobLeaseSeconds: int('FIRMSCOPE_JOB_LEASE_SECONDS', 60, 2, 3600),
    jobPollMs: int('FIRMSCOPE_JOB_POLL_MS', 1000, 50, 60_000),
    externalIssuer: url('FIRMSCOPE_EXTERNAL_ISSUER'),
    externalJwksUrl: url('FIRMSCOPE_EXTERNAL_JWKS_URL'),
    externalAudience: str('FIRMSCOPE_EXTERNAL_CLIENT'),
    externalOrg: name('FIRMSCOPE_EXTERNAL_ORG', 'default'),
    logLevel,
  };
  if (config.externalJwksUrl && !config.externalIssuer) {
    problems.push('FIRMSCOPE_EXTERNAL_JWKS_URL: set FIRMSCOPE_EXTERNAL_ISSUER too');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

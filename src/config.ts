// Configuration is parsed and validated once at start; every bad variable is listed in one error.
// Nothing else reads process.env.
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Limits } from './engine/unpack/limits.js';

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
  /**
   * The token signing key (FIRMSCOPE_SIGNING_KEY, or the file FIRMSCOPE_SIGNING_KEY_FILE): an RSA private key in
   * PEM, at least 2048 bits. Absent means a key generated once and kept in the database.
   */
  signingKeyPem?: string;
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
  /**
   * This service's client at the external issuer (required with it): external tokens must name it in `aud` or
   * `azp`, and its client roles map to ours (realm roles always map).
   */
  externalAudience?: string;
  /** Organisation that users of the external issuer belong to. */
  externalOrg: string;
  /**
   * The OpenID provider the web UI signs in with (FIRMSCOPE_UI_OIDC_ISSUER, which must be the external issuer) and
   * the UI's public client there (FIRMSCOPE_UI_OIDC_CLIENT_ID, default FIRMSCOPE_EXTERNAL_CLIENT); absent means
   * the built-in identity provider.
   */
  uiOidc?: { issuer: string; clientId: string };
  /**
   * Other origins whose pages may sign in with the built-in provider's public client (FIRMSCOPE_CLIENT_ORIGINS,
   * comma-separated): their redirect URIs are accepted and the token and discovery endpoints answer them (CORS),
   * like a Keycloak client's valid redirect URIs and web origins. This service's own origin always may.
   */
  clientOrigins: string[];
  logLevel: string;
  /** Unpacking limits of every scan; an absent field keeps the engine's default (see engine/unpack/limits.ts). */
  unpackLimits: Partial<Limits>;
  /** FIRMSCOPE_BLOB_URL=s3://bucket/prefix: blobs in that bucket; absent means the `blobs` folder of dataDir. */
  s3?: S3BlobSettings;
  /** How long SIGTERM waits for running scans to finish before handing them back to the queue. */
  shutdownGraceSeconds: number;
  /** Port of a `firmscope worker`'s /health and /metrics; absent means none. */
  workerPort?: number;
  /** Requests per minute per client address (FIRMSCOPE_RATE_LIMIT_PER_MINUTE, default 1200). */
  rateLimitPerMinute: number;
  /** Delays before each retry of a webhook delivery (FIRMSCOPE_WEBHOOK_RETRY_SCHEDULE, default ≈ 24 h in 10 retries). */
  webhookRetryScheduleMs: number[];
  /** FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE=1: webhooks may target loopback and private addresses (tests, closed networks). */
  webhookAllowPrivate: boolean;
  /** Finished webhook deliveries older than this are deleted by the webhook worker (FIRMSCOPE_WEBHOOK_DELIVERY_RETENTION_DAYS, default 30). */
  webhookDeliveryRetentionDays: number;
  /**
   * Cap of each organisation's analysis cache in the database (FIRMSCOPE_ANALYSIS_CACHE_MAX_BYTES, default 2G; 0
   * turns the cache off): past it, the least recently used results go (engine/analysis-cache.ts).
   */
  analysisCacheMaxBytes: number;
}

const MAKE_SIGNING_KEY = 'make one with: openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048';

/**
 * The configured token signing key as PEM text, from the variable or the file it names (not both); a problem is
 * recorded unless it is an RSA private key of at least 2048 bits. The key itself never appears in a message.
 */
function signingKey(pem: string | undefined, file: string | undefined, problems: string[]): string | undefined {
  if (pem && file) {
    problems.push('FIRMSCOPE_SIGNING_KEY and FIRMSCOPE_SIGNING_KEY_FILE: set one, not both');
    return undefined;
  }
  const name = file ? `FIRMSCOPE_SIGNING_KEY_FILE=${file}` : 'FIRMSCOPE_SIGNING_KEY';
  let text = pem;
  if (file) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      problems.push(`${name}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      return undefined;
    }
  }
  if (text === undefined) return undefined;
  // Environments often carry a PEM on one line with literal \n separators.
  text = text.replace(/\\n/g, '\n').trim();
  try {
    const key = createPrivateKey(text);
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (key.asymmetricKeyType !== 'rsa' || bits < 2048) {
      problems.push(`${name}: expected an RSA private key of at least 2048 bits (found ${key.asymmetricKeyType ?? 'unknown'}${bits ? `, ${bits} bits` : ''}); ${MAKE_SIGNING_KEY}`);
      return undefined;
    }
  } catch {
    problems.push(`${name}: expected an RSA private key in PEM ("-----BEGIN PRIVATE KEY-----"); ${MAKE_SIGNING_KEY}`);
    return undefined;
  }
  return text;
}

/** Default cap of an organisation's analysis cache: a few hundred images' results. */
export const DEFAULT_ANALYSIS_CACHE_MAX_BYTES = 2 * 1024 ** 3;

/** 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h: 10 retries over ≈ 23.7 h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '5s,30s,2m,10m,30m,1h,2h,4h,8h,8h';

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A comma-separated list of durations, each digits with ms, s, m or h (e.g. `5s,30s,2m`); undefined when malformed. */
export function parseDurationList(text: string): number[] | undefined {
  const items = text.split(',').map((item) => /^\s*(\d+)\s*(ms|s|m|h)\s*$/.exec(item));
  if (items.length === 0 || items.length > 50 || items.some((m) => !m)) return undefined;
  return items.map((m) => Number(m![1]) * DURATION_UNITS[m![2]!]!);
}

export interface S3BlobSettings {
  bucket: string;
  /** Key prefix without leading or trailing '/'; '' for the bucket's root. */
  prefix: string;
  /** FIRMSCOPE_S3_ENDPOINT (or AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL); absent means AWS. */
  endpoint?: string;
  forcePathStyle: boolean;
}

/** `s3://bucket/prefix` → bucket and prefix; undefined when `url` is not such a URL. */
export function parseS3Url(url: string): { bucket: string; prefix: string } | undefined {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(\/.*)?$/.exec(url.trim());
  if (!match) return undefined;
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix && prefix.split('/').some((part) => !/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(part))) return undefined;
  return { bucket: match[1]!, prefix };
}

/**
 * Accepted ranges of the unpacking limits, shared by the environment variables here and the CLI flags of
 * `firmscope unpack` and `firmscope scan`.
 */
export const UNPACK_LIMIT_RANGES = {
  maxDepth: { min: 1, max: 64 },
  maxTotalBytes: { min: 1, max: Number.MAX_SAFE_INTEGER },
  maxFiles: { min: 1, max: 100_000_000 },
  timeoutSeconds: { min: 1, max: 7 * 86_400 },
} as const;

/** The whole number `raw` writes, when it is one from `min` to `max` (digits only); undefined otherwise. */
export function parseIntegerIn(raw: string, min: number, max: number): number | undefined {
  const value = Number(raw);
  return /^\d+$/.test(raw.trim()) && Number.isSafeInteger(value) && value >= min && value <= max ? value : undefined;
}

/** Unpacking limits from the values a user gave (absent ones keep the engine's defaults); time in seconds. */
export function unpackLimits(values: { maxDepth?: number; maxTotalBytes?: number; maxFiles?: number; timeoutSeconds?: number }): Partial<Limits> {
  const limits: Partial<Limits> = {};
  if (values.maxDepth !== undefined) limits.maxDepth = values.maxDepth;
  if (values.maxTotalBytes !== undefined) limits.maxTotalBytes = values.maxTotalBytes;
  if (values.maxFiles !== undefined) limits.maxFiles = values.maxFiles;
  if (values.timeoutSeconds !== undefined) limits.timeoutMs = Math.round(values.timeoutSeconds * 1000);
  return limits;
}

const SIZE_UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/**
 * A byte count: digits with an optional binary unit K, M, G or T (also KB/KiB..., any case), e.g. 4096, 512M,
 * 4G, 1.5G. Undefined for anything else, or for a value that is not a safe whole number of bytes of at least 1.
 */
export function parseByteSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i.exec(text.trim());
  if (!match) return undefined;
  const bytes = Math.floor(Number(match[1]) * SIZE_UNITS[match[2]!.toUpperCase()]!);
  return Number.isSafeInteger(bytes) && bytes >= 1 ? bytes : undefined;
}

/**
 * Where `firmscope scan` keeps its analysis cache: $XDG_CACHE_HOME/firmscope, else ~/.cache/firmscope; and its cap
 * (FIRMSCOPE_ANALYSIS_CACHE_MAX_BYTES, as for the service).
 */
export function localAnalysisCache(env: Record<string, string | undefined> = process.env): { dir: string; maxBytes: number } {
  const base = env.XDG_CACHE_HOME?.trim() || join(homedir(), '.cache');
  const raw = env.FIRMSCOPE_ANALYSIS_CACHE_MAX_BYTES?.trim();
  const maxBytes = raw === undefined || raw === '' ? DEFAULT_ANALYSIS_CACHE_MAX_BYTES : raw === '0' ? 0 : parseByteSize(raw);
  if (maxBytes === undefined) throw new ConfigError([`FIRMSCOPE_ANALYSIS_CACHE_MAX_BYTES=${raw}: expected a size in bytes, optionally with K, M, G or T (e.g. 512M, 4G)`]);
  return { dir: join(resolve(base), 'firmscope'), maxBytes };
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
  /** An integer in [min, max]; undefined when absent, or when invalid (then listed in the problems). */
  const optionalInt = (name: string, min: number, max: number): number | undefined => {
    const raw = str(name);
    if (raw === undefined) return undefined;
    const value = parseIntegerIn(raw, min, max);
    if (value !== undefined) return value;
    problems.push(`${name}=${raw}: expected an integer from ${min} to ${max}`);
    return undefined;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => optionalInt(name, min, max) ?? fallback;
  /** A byte count (see parseByteSize); undefined when absent or invalid. */
  const size = (name: string): number | undefined => {
    const raw = str(name);
    if (raw === undefined) return undefined;
    const value = parseByteSize(raw);
    if (value === undefined) problems.push(`${name}=${raw}: expected a size in bytes, optionally with K, M, G or T (e.g. 512M, 4G)`);
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
  const origins = (key: string): string[] => {
    const raw = str(key);
    if (raw === undefined) return [];
    const out: string[] = [];
    for (const item of raw.split(',').map((x) => x.trim()).filter(Boolean)) {
      try {
        const parsed = new URL(item);
        if (!/^https?:$/.test(parsed.protocol) || parsed.origin !== item.replace(/\/+$/, '')) throw new Error('not an origin');
        out.push(parsed.origin);
      } catch {
        problems.push(`${key}: '${item}' is not an origin (scheme://host[:port], nothing after)`);
      }
    }
    return out;
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
  const signingKeyPem = signingKey(str('FIRMSCOPE_SIGNING_KEY'), str('FIRMSCOPE_SIGNING_KEY_FILE'), problems);
  // Unpacking limits: each variable that is set replaces the engine's default for every scan.
  const ranges = UNPACK_LIMIT_RANGES;
  const limits = unpackLimits({
    maxDepth: optionalInt('FIRMSCOPE_UNPACK_MAX_DEPTH', ranges.maxDepth.min, ranges.maxDepth.max),
    maxTotalBytes: size('FIRMSCOPE_UNPACK_MAX_BYTES'),
    maxFiles: optionalInt('FIRMSCOPE_UNPACK_MAX_FILES', ranges.maxFiles.min, ranges.maxFiles.max),
    timeoutSeconds: optionalInt('FIRMSCOPE_UNPACK_TIMEOUT_SECONDS', ranges.timeoutSeconds.min, ranges.timeoutSeconds.max),
  });
  const blobUrl = str('FIRMSCOPE_BLOB_URL');
  let s3: S3BlobSettings | undefined;
  if (blobUrl) {
    const location = parseS3Url(blobUrl);
    if (!location) problems.push(`FIRMSCOPE_BLOB_URL=${blobUrl}: expected s3://bucket or s3://bucket/prefix (prefix of letters, digits, '.', '_', '-' and '/')`);
    const endpointName = ['FIRMSCOPE_S3_ENDPOINT', 'AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL'].find((n) => str(n) !== undefined);
    const endpoint = endpointName ? url(endpointName) : undefined;
    const pathStyle = str('FIRMSCOPE_S3_FORCE_PATH_STYLE') ?? '0';
    if (!['0', '1', 'true', 'false'].includes(pathStyle)) problems.push(`FIRMSCOPE_S3_FORCE_PATH_STYLE=${pathStyle}: expected 1 or 0`);
    if (location) s3 = { ...location, endpoint, forcePathStyle: pathStyle === '1' || pathStyle === 'true' };
  }
  const retrySchedule = str('FIRMSCOPE_WEBHOOK_RETRY_SCHEDULE') ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE;
  const webhookRetryScheduleMs = parseDurationList(retrySchedule);
  if (!webhookRetryScheduleMs) problems.push(`FIRMSCOPE_WEBHOOK_RETRY_SCHEDULE=${retrySchedule}: expected comma-separated durations such as 5s,30s,2m,1h (units ms, s, m, h)`);
  const allowPrivate = str('FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE') ?? '0';
  if (!['0', '1'].includes(allowPrivate)) problems.push(`FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE=${allowPrivate}: expected 1 or 0`);
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
    signingKeyPem,
    workers: int('FIRMSCOPE_WORKERS', 1, 0, 64),
    maxUploadBytes: int('FIRMSCOPE_MAX_UPLOAD_BYTES', 4 * 1024 ** 3, 1, Number.MAX_SAFE_INTEGER),
    jobLeaseSeconds: int('FIRMSCOPE_JOB_LEASE_SECONDS', 60, 2, 3600),
    jobPollMs: int('FIRMSCOPE_JOB_POLL_MS', 1000, 50, 60_000),
    externalIssuer: url('FIRMSCOPE_EXTERNAL_ISSUER'),
    externalJwksUrl: url('FIRMSCOPE_EXTERNAL_JWKS_URL'),
    externalAudience: str('FIRMSCOPE_EXTERNAL_CLIENT'),
    externalOrg: name('FIRMSCOPE_EXTERNAL_ORG', 'default'),
    clientOrigins: origins('FIRMSCOPE_CLIENT_ORIGINS'),
    logLevel,
    unpackLimits: limits,
    s3,
    shutdownGraceSeconds: int('FIRMSCOPE_SHUTDOWN_GRACE_SECONDS', 30, 0, 3600),
    workerPort: optionalInt('FIRMSCOPE_WORKER_PORT', 1, 65535),
    rateLimitPerMinute: int('FIRMSCOPE_RATE_LIMIT_PER_MINUTE', 1200, 1, 10_000_000),
    webhookRetryScheduleMs: webhookRetryScheduleMs ?? [],
    webhookAllowPrivate: allowPrivate === '1',
    webhookDeliveryRetentionDays: int('FIRMSCOPE_WEBHOOK_DELIVERY_RETENTION_DAYS', 30, 1, 3650),
    analysisCacheMaxBytes: str('FIRMSCOPE_ANALYSIS_CACHE_MAX_BYTES')?.trim() === '0' ? 0 : (size('FIRMSCOPE_ANALYSIS_CACHE_MAX_BYTES') ?? DEFAULT_ANALYSIS_CACHE_MAX_BYTES),
  };
  const uiIssuer = url('FIRMSCOPE_UI_OIDC_ISSUER');
  const uiClientId = str('FIRMSCOPE_UI_OIDC_CLIENT_ID') ?? config.externalAudience;
  if (uiIssuer && uiIssuer !== config.externalIssuer) {
    problems.push(`FIRMSCOPE_UI_OIDC_ISSUER=${uiIssuer}: the API accepts only its own and FIRMSCOPE_EXTERNAL_ISSUER's tokens; set FIRMSCOPE_EXTERNAL_ISSUER to the same URL`);
  } else if (uiIssuer && uiClientId) {
    config.uiOidc = { issuer: uiIssuer, clientId: uiClientId };
  }
  if (str('FIRMSCOPE_UI_OIDC_CLIENT_ID') && !uiIssuer) problems.push('FIRMSCOPE_UI_OIDC_CLIENT_ID: set FIRMSCOPE_UI_OIDC_ISSUER too');
  if (config.externalJwksUrl && !config.externalIssuer) {
    problems.push('FIRMSCOPE_EXTERNAL_JWKS_URL: set FIRMSCOPE_EXTERNAL_ISSUER too');
  }
  if (str('FIRMSCOPE_EXTERNAL_ISSUER') && !config.externalAudience) {
    problems.push(
      "FIRMSCOPE_EXTERNAL_CLIENT: required with FIRMSCOPE_EXTERNAL_ISSUER; set it to this service's client id at the issuer (external tokens must name it in aud or azp)",
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

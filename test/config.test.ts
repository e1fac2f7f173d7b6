import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, localAnalysisCache, parseByteSize } from '../src/config.js';
import { tempDir } from './support/temp-dirs.js';

describe('loadConfig', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.baseUrl).toBe('http://localhost:8080');
    expect(config.realm).toBe('FirmscopeRealm');
    expect(config.publicClientId).toBe('FirmscopeClient');
    expect(config.accessTokenSeconds).toBe(1800);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toMatch(/data$/);
  });

  it('reads the S3 blob store, the shutdown grace, the worker port and the rate limit', () => {
    const defaults = loadConfig({});
    expect(defaults.s3).toBeUndefined();
    expect(defaults.shutdownGraceSeconds).toBe(30);
    expect(defaults.workerPort).toBeUndefined();
    expect(defaults.rateLimitPerMinute).toBe(1200);
    expect(loadConfig({ FIRMSCOPE_BLOB_URL: 's3://fw-blobs/prod/eu', AWS_ENDPOINT_URL: 'http://minio:9000/', FIRMSCOPE_S3_FORCE_PATH_STYLE: '1' }).s3)
      .toEqual({ bucket: 'fw-blobs', prefix: 'prod/eu', endpoint: 'http://minio:9000', forcePathStyle: true });
    expect(loadConfig({ FIRMSCOPE_BLOB_URL: 's3://fw-blobs', FIRMSCOPE_S3_ENDPOINT: 'http://a:1', AWS_ENDPOINT_URL_S3: 'http://b:2' }).s3)
      .toEqual({ bucket: 'fw-blobs', prefix: '', endpoint: 'http://a:1', forcePathStyle: false });
    for (const bad of ['http://bucket/x', 's3://', 's3://b/../x', 's3://Upper']) {
      expect(() => loadConfig({ FIRMSCOPE_BLOB_URL: bad }), bad).toThrow(/FIRMSCOPE_BLOB_URL/);
    }
    expect(() => loadConfig({ FIRMSCOPE_SHUTDOWN_GRACE_SECONDS: 'soon', FIRMSCOPE_WORKER_PORT: '70000' })).toThrow(/FIRMSCOPE_SHUTDOWN_GRACE_SECONDS[\s\S]*FIRMSCOPE_WORKER_PORT/);
  });

  it('reads the analysis cache cap (0 turns it off) and where `firmscope scan` keeps its cache', () => {
    expect(loadConfig({}).analysisCacheMaxBytes).toBe(2 * 1024 ** 3);
    expect(loadConfig({ FIRMSCOPE_ANALYSIS_CACHE_MAX_BYTES: '512M' }).analysisCacheMaxBytes).toBe(512 * 1024 ** 2);
    expect(loadConfig({ FIRMSCOPE_ANALYSIS_CACHE_MAX_BYTES: '0' }).analysisCacheMaxBytes).toBe(0);
    expect(() => loadConfig({ FIRMSCOPE_ANALYSIS_CACHE_MAX_BYTES: 'lots' })).toThrow(/FIRMSCOPE_ANALYSIS_CACHE_MAX_BYTES=lots/);
    expect(localAnalysisCache({ XDG_CACHE_HOME: '/var/cache/me', FIRMSCOPE_ANALYSIS_CACHE_MAX_BYTES: '1G' })).toEqual({ dir: '/var/cache/me/firmscope', maxBytes: 1024 ** 3 });
    expect(localAnalysisCache({ HOME: '/ignored' }).dir).toBe(join(homedir(), '.cache', 'firmscope'));
    expect(() => localAnalysisCache({ FIRMSCOPE_ANALYSIS_CACHE_MAX_BYTES: '-1' })).toThrow(/FIRMSCOPE_ANALYSIS_CACHE_MAX_BYTES=-1/);
  });

  it('derives the base URL from PORT and strips a trailing slash from an explicit one', () => {
    expect(loadConfig({ PORT: '9000' }).baseUrl).toBe('http://localhost:9000');
    expect(loadConfig({ FIRMSCOPE_BASE_URL: 'https://scan.example.com/' }).baseUrl).toBe('https://scan.example.com');
  });

  it('lists every bad variable in one error', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', FIRMSCOPE_BASE_URL: 'ftp://x', DATABASE_URL: 'mysql://x', FIRMSCOPE_WORKERS: '-1', FIRMSCOPE_ADMIN_EMAIL: 'a@b' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'FIRMSCOPE_BASE_URL', 'DATABASE_URL', 'FIRMSCOPE_WORKERS', 'FIRMSCOPE_ADMIN_PASSWORD']) {
      expect(problems).toContain(name);
    }
  });

  it('reads the webhook retry schedule (≈ 24 h by default) and the private-target flag', () => {
    const defaults = loadConfig({});
    expect(defaults.webhookRetryScheduleMs).toHaveLength(10);
    expect(defaults.webhookRetryScheduleMs.reduce((a, b) => a + b, 0) / 3_600_000).toBeCloseTo(23.7, 1);
    expect(defaults.webhookAllowPrivate).toBe(false);
    const set = loadConfig({ FIRMSCOPE_WEBHOOK_RETRY_SCHEDULE: '250ms, 5s,2m,1h', FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE: '1' });
    expect(set.webhookRetryScheduleMs).toEqual([250, 5000, 120_000, 3_600_000]);
    expect(set.webhookAllowPrivate).toBe(true);
    expect(() => loadConfig({ FIRMSCOPE_WEBHOOK_RETRY_SCHEDULE: '5s,soon', FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE: 'yes' }))
      .toThrow(/FIRMSCOPE_WEBHOOK_RETRY_SCHEDULE=5s,soon: expected comma-separated durations[\s\S]*FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE=yes/);
  });

  it('reads the webhook delivery retention in days (30 by default, 1 to 3650)', () => {
    expect(loadConfig({}).webhookDeliveryRetentionDays).toBe(30);
    expect(loadConfig({ FIRMSCOPE_WEBHOOK_DELIVERY_RETENTION_DAYS: '7' }).webhookDeliveryRetentionDays).toBe(7);
    for (const bad of ['0', '-1', 'soon', '4000']) expect(() => loadConfig({ FIRMSCOPE_WEBHOOK_DELIVERY_RETENTION_DAYS: bad }), bad).toThrow(/FIRMSCOPE_WEBHOOK_DELIVERY_RETENTION_DAYS/);
  });

  it('accepts a PostgreSQL URL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h:5432/d' }).databaseUrl).toBe('postgres://u@h:5432/d');
  });

  it('leaves the unpacking limits to the engine unless set', () => {
    expect(loadConfig({}).unpackLimits).toEqual({});
  });

  it('reads the unpacking limits of scans, sizes with a unit, timeout in seconds', () => {
    const config = loadConfig({
      FIRMSCOPE_UNPACK_MAX_DEPTH: '8',
      FIRMSCOPE_UNPACK_MAX_BYTES: '512M',
      FIRMSCOPE_UNPACK_MAX_FILES: '5000',
      FIRMSCOPE_UNPACK_TIMEOUT_SECONDS: '90',
    });
    expect(config.unpackLimits).toEqual({ maxDepth: 8, maxTotalBytes: 512 * 1024 ** 2, maxFiles: 5000, timeoutMs: 90_000 });
    expect(loadConfig({ FIRMSCOPE_UNPACK_MAX_BYTES: '1073741824' }).unpackLimits).toEqual({ maxTotalBytes: 1024 ** 3 });
  });

  it('lists every bad unpacking limit in one error, with what was expected', () => {
    let error: unknown;
    try {
      loadConfig({
        FIRMSCOPE_UNPACK_MAX_DEPTH: '0',
        FIRMSCOPE_UNPACK_MAX_BYTES: '12X',
        FIRMSCOPE_UNPACK_MAX_FILES: '-3',
        FIRMSCOPE_UNPACK_TIMEOUT_SECONDS: '1.5',
        PORT: 'eighty',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'PORT=eighty: expected an integer from 0 to 65535',
      'FIRMSCOPE_UNPACK_MAX_DEPTH=0: expected an integer from 1 to 64',
      'FIRMSCOPE_UNPACK_MAX_BYTES=12X: expected a size in bytes, optionally with K, M, G or T (e.g. 512M, 4G)',
      'FIRMSCOPE_UNPACK_MAX_FILES=-3: expected an integer from 1 to 100000000',
      'FIRMSCOPE_UNPACK_TIMEOUT_SECONDS=1.5: expected an integer from 1 to 604800',
    ]);
  });

  it('requires the client of an external issuer, which its tokens must name', () => {
    const issuer = 'https://sso.example.com/realms/corp';
    expect(() => loadConfig({ FIRMSCOPE_EXTERNAL_ISSUER: issuer })).toThrow(/FIRMSCOPE_EXTERNAL_CLIENT: required with FIRMSCOPE_EXTERNAL_ISSUER/);
    expect(loadConfig({ FIRMSCOPE_EXTERNAL_ISSUER: issuer, FIRMSCOPE_EXTERNAL_CLIENT: 'firmscope' })).toMatchObject({
      externalIssuer: issuer, externalAudience: 'firmscope', externalOrg: 'default',
    });
  });

  it('points the web UI at the external issuer only, and reads the extra client origins', () => {
    const issuer = 'https://sso.example.com/realms/firmware';
    expect(loadConfig({}).uiOidc).toBeUndefined();
    expect(loadConfig({}).clientOrigins).toEqual([]);
    expect(loadConfig({ FIRMSCOPE_EXTERNAL_ISSUER: issuer, FIRMSCOPE_EXTERNAL_CLIENT: 'firmscope', FIRMSCOPE_UI_OIDC_ISSUER: issuer }).uiOidc)
      .toEqual({ issuer, clientId: 'firmscope' });
    expect(loadConfig({ FIRMSCOPE_EXTERNAL_ISSUER: issuer, FIRMSCOPE_EXTERNAL_CLIENT: 'firmscope', FIRMSCOPE_UI_OIDC_ISSUER: `${issuer}/`, FIRMSCOPE_UI_OIDC_CLIENT_ID: 'firmscope-ui' }).uiOidc)
      .toEqual({ issuer, clientId: 'firmscope-ui' });
    expect(() => loadConfig({ FIRMSCOPE_UI_OIDC_ISSUER: issuer })).toThrow(/FIRMSCOPE_UI_OIDC_ISSUER=.*set FIRMSCOPE_EXTERNAL_ISSUER to the same URL/);
    expect(() => loadConfig({ FIRMSCOPE_UI_OIDC_CLIENT_ID: 'x' })).toThrow(/FIRMSCOPE_UI_OIDC_CLIENT_ID: set FIRMSCOPE_UI_OIDC_ISSUER too/);
    expect(loadConfig({ FIRMSCOPE_CLIENT_ORIGINS: 'http://localhost:5173, https://ui.example.com' }).clientOrigins).toEqual(['http://localhost:5173', 'https://ui.example.com']);
    expect(() => loadConfig({ FIRMSCOPE_CLIENT_ORIGINS: 'https://ui.example.com/app' })).toThrow(/FIRMSCOPE_CLIENT_ORIGINS: 'https:\/\/ui.example.com\/app' is not an origin/);
  });

  it('reads the token signing key as PEM from the variable or a file, and says what is wrong with a bad one', () => {
    const pem = (type: 'rsa' | 'ec', bits = 2048) => (type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: bits })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' })).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const rsa = pem('rsa');
    expect(loadConfig({}).signingKeyPem).toBeUndefined();
    expect(loadConfig({ FIRMSCOPE_SIGNING_KEY: rsa }).signingKeyPem).toBe(rsa.trim());
    // One line with literal \n separators, as some secret stores hand it over.
    expect(loadConfig({ FIRMSCOPE_SIGNING_KEY: rsa.replace(/\n/g, '\\n') }).signingKeyPem).toBe(rsa.trim());
    const file = join(tempDir('signing-key'), 'key.pem');
    writeFileSync(file, rsa);
    expect(loadConfig({ FIRMSCOPE_SIGNING_KEY_FILE: file }).signingKeyPem).toBe(rsa.trim());
    expect(() => loadConfig({ FIRMSCOPE_SIGNING_KEY_FILE: `${file}.missing` })).toThrow(/FIRMSCOPE_SIGNING_KEY_FILE=.*key\.pem\.missing: cannot read the file \(ENOENT\)/);
    expect(() => loadConfig({ FIRMSCOPE_SIGNING_KEY: rsa, FIRMSCOPE_SIGNING_KEY_FILE: file })).toThrow(/set one, not both/);
    expect(() => loadConfig({ FIRMSCOPE_SIGNING_KEY: 'not a key' })).toThrow(/FIRMSCOPE_SIGNING_KEY: expected an RSA private key in PEM/);
    expect(() => loadConfig({ FIRMSCOPE_SIGNING_KEY: pem('ec') })).toThrow(/at least 2048 bits \(found ec\)/);
    expect(() => loadConfig({ FIRMSCOPE_SIGNING_KEY: pem('rsa', 1024) })).toThrow(/found rsa, 1024 bits/);
    // The key never shows in an error.
    try {
      loadConfig({ FIRMSCOPE_SIGNING_KEY: pem('rsa', 1024), PORT: 'x' });
    } catch (e) {
      expect(String((e as Error).message)).not.toContain('PRIVATE KEY');
    }
  });

  it('parses byte sizes with binary units', () => {
    expect(parseByteSize('4096')).toBe(4096);
    expect(parseByteSize('512M')).toBe(512 * 1024 ** 2);
    expect(parseByteSize('4g')).toBe(4 * 1024 ** 3);
    expect(parseByteSize('1.5GiB')).toBe(1.5 * 1024 ** 3);
    expect(parseByteSize('64 KB')).toBe(64 * 1024);
    for (const bad of ['', '0', '-1', '1e9', '12X', 'M', '0.1']) expect(parseByteSize(bad), bad).toBeUndefined();
  });
});


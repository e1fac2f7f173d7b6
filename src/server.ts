// Starting the service: open the store, load the signing key, build the app, listen, then bootstrap the first
// organisation and admin, and run scan workers in-process (FIRMSCOPE_WORKERS, default 1). Listening comes before
// the admin: a server that cannot take its port leaves no admin (whose generated password would be printed by a
// process that then exits) in the data folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { lazySerializers, type LazySerializers } from './api/lazy-serializers.js';
import { loadSigningKey } from './auth/signing-keys.js';
import { externalIssuerSettings } from './auth/external-issuer.js';
import { TokenService } from './auth/token-service.js';
import { loadConfig, type Config } from './config.js';
import { closeScanThreads, runEngineInThread } from './jobs/engine-runner.js';
import { rematchJobHandler } from './jobs/rematch-job.js';
import { failAbandonedScan, scanJobHandler } from './jobs/scan-job.js';
import { JobWorker } from './jobs/worker.js';
import { failAbandonedDelivery, webhookJobHandler } from './jobs/webhook-job.js';
import { WEBHOOK_JOB } from './services/webhook-events.js';
import { scheduleWebhookRetention } from './services/webhook-retention.js';
import { createMetrics, type Metrics } from './services/metrics.js';
import { bootstrap, ensureDefaultOrg } from './services/bootstrap.js';
import { createRepositories, type Repositories } from './store/repositories.js';
import { REMATCH_JOB } from './services/rematch-jobs.js';
import { SCAN_JOB } from './services/scans.js';
import { resolveUploadSecret } from './services/upload-secret.js';
import type { BlobStore } from './store/blob-store.js';
import { openDatabase, type OpenedDatabase } from './store/database.js';
import { FilesystemBlobStore } from './store/filesystem-blob-store.js';
import { VulnerabilityReader } from './store/vulns-reader.js';

export interface Runtime {
  database: OpenedDatabase;
  repos: Repositories;
  blobs: BlobStore;
  logger: Logger;
}

export async function openRuntime(config: Config, logger: Logger = pino({ level: config.logLevel })): Promise<Runtime> {
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  return { database, repos: createRepositories(database.db, database.dialect), blobs: await openBlobStore(config), logger };
}

/** The S3 bucket of FIRMSCOPE_BLOB_URL, or the `blobs` folder of the data folder (the AWS SDK loads only for S3). */
export async function openBlobStore(config: Config): Promise<BlobStore> {
  if (!config.s3) return new FilesystemBlobStore(join(config.dataDir, 'blobs'));
  const { S3BlobStore, s3Client } = await import('./store/s3-blob-store.js');
  return new S3BlobStore(s3Client(config.s3), config.s3);
}

/** The database the scan threads open (the vulnerability source): the service's own. */
function scanDatabase(config: Config): { url?: string; dataDir: string } {
  return { url: config.databaseUrl, dataDir: config.dataDir };
}

export function createWorker(config: Config, runtime: Runtime, concurrency: number, metrics?: Metrics): JobWorker {
  const { repos, blobs, logger } = runtime;
  const database = scanDatabase(config);
  return new JobWorker({
    jobs: repos.jobs,
    concurrency,
    logger,
    handlers: {
      [SCAN_JOB]: scanJobHandler({
        repos, blobs, dataDir: config.dataDir, baseUrl: config.baseUrl,
        limits: config.unpackLimits,
        analyse: (input, signal, onProgress) => runEngineInThread({ ...input, database, analysisCacheMaxBytes: config.analysisCacheMaxBytes }, { signal, onProgress }),
      }, metrics),
      [REMATCH_JOB]: rematchJobHandler(repos, new VulnerabilityReader(runtime.database.db), logger, config.baseUrl),
    },
    onAbandoned: failAbandonedScan(repos, config.baseUrl),
    leaseMs: config.jobLeaseSeconds * 1000,
    pollMs: config.jobPollMs,
    listen: runtime.database.listen,
  });
}

/** Webhook deliveries: a worker of their own, so a long scan never holds them up (each attempt is short). */
export function createWebhookWorker(config: Config, runtime: Runtime): JobWorker {
  return new JobWorker({
    jobs: runtime.repos.jobs,
    // two at once: an attempt lasts at most 10 s, and each idle loop polls the database
    concurrency: 2,
    logger: runtime.logger,
    handlers: { [WEBHOOK_JOB]: webhookJobHandler(runtime.repos, { retryScheduleMs: config.webhookRetryScheduleMs, allowPrivate: config.webhookAllowPrivate }) },
    onAbandoned: failAbandonedDelivery(runtime.repos),
    leaseMs: config.jobLeaseSeconds * 1000,
    pollMs: config.jobPollMs,
    listen: runtime.database.listen,
  });
}

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  runtime: Runtime;
  worker?: JobWorker;
  /** Sends webhook deliveries (when workers run in this process). */
  webhookWorker?: JobWorker;
  metrics: Metrics;
  /** Stops listening, lets running scans finish within `graceMs` (default 0: hand them back at once), then closes. */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Scan threads and the database of a stopped worker: after its scans, so no thread is torn down mid-scan. */
export async function closeRuntime(config: Config, runtime: Runtime): Promise<void> {
  await closeScanThreads(scanDatabase(config));
  await runtime.database.close();
}

export async function startServer(config: Config, logger?: Logger): Promise<RunningServer> {
  const runtime = await openRuntime(config, logger);
  let app: FastifyInstance | undefined;
  let url: string;
  // /healthz says 503 'starting' until the first admin exists, so nobody signs in before it does
  let ready = false;
  const metrics = createMetrics(runtime.repos, 'api');
  try {
    app = await buildServiceApp(config, runtime, () => ready, metrics);
    url = await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
      throw new Error(listenFailure(error, config));
    });
    await bootstrapAdmin(config, runtime);
    ready = true;
  } catch (error) {
    await app?.close();
    await runtime.database.close();
    throw error;
  }
  const worker = config.workers > 0 ? createWorker(config, runtime, config.workers, metrics) : undefined;
  worker?.start();
  const webhookWorker = config.workers > 0 ? createWebhookWorker(config, runtime) : undefined;
  webhookWorker?.start();
  const stopRetention = webhookWorker ? scheduleWebhookRetention(runtime.repos, config.webhookDeliveryRetentionDays, runtime.logger) : undefined;
  const listening = app;
  return {
    app: listening, url, runtime, worker, webhookWorker, metrics,
    async close(options = {}) {
      stopRetention?.();
      await Promise.all([listening.close(), worker?.stop(options.graceMs ?? 0), webhookWorker?.stop(options.graceMs ?? 0)]);
      await closeRuntime(config, runtime);
    },
  };
}

/**
 * The HTTP app with its token service (signing key from the store) and upload settings. Without `metrics` (the
 * OpenAPI document) it has no /metrics or /health routes, which the document hides anyway.
 */
async function buildServiceApp(config: Config, runtime: Runtime, ready: () => boolean, metrics?: Metrics, serializers?: LazySerializers): Promise<FastifyInstance> {
  const { repos, blobs } = runtime;
  const key = await loadSigningKey(repos.identities, config.signingKeyPem);
  const issuer = `${config.baseUrl}/realms/${config.realm}`;
  // The external issuer's organisation must exist before the token service is built: `default` (the usual one)
  // is created here, before listening; an organisation alone is harmless if listening then fails.
  if (config.externalIssuer && config.externalOrg === 'default') await ensureDefaultOrg(repos.identities);
  const tokens = new TokenService(key, {
    issuer, publicClientId: config.publicClientId, accessTokenSeconds: config.accessTokenSeconds, refreshTokenSeconds: config.refreshTokenSeconds,
    external: await externalIssuerSettings(config, repos.identities),
  }, repos.identities);
  return buildApp({
    repos, blobs, tokens, baseUrl: config.baseUrl, realm: config.realm, publicClientId: config.publicClientId,
    uploads: { baseUrl: config.baseUrl, secret: await resolveUploadSecret(config.uploadSecret, config.dataDir), urlSeconds: config.uploadUrlSeconds, maxBytes: config.maxUploadBytes },
    logger: runtime.logger,
    ready,
    ...(metrics ? { metrics } : {}),
    rateLimitPerMinute: config.rateLimitPerMinute,
    webhookAllowPrivate: config.webhookAllowPrivate,
    uiOidc: config.uiOidc,
    clientOrigins: config.clientOrigins,
    serializers,
  });
}

/**
 * The OpenAPI document of the service as generated from its route schemas, built on a throwaway embedded
 * database (nothing listens). Used to generate the typed client (scripts/client-types.ts). It also compiles every
 * route's response serializer, which the service does only at a route's first response: a schema
 * fast-json-stringify refuses fails here (and in the client-types test) rather than at a request.
 */
export async function describeApi(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-describe-'));
  try {
    const config = loadConfig({ FIRMSCOPE_DATA_DIR: dataDir, FIRMSCOPE_BASE_URL: 'http://localhost:8080', LOG_LEVEL: 'silent' });
    const runtime = await openRuntime(config, pino({ level: 'silent' }));
    try {
      const serializers = lazySerializers();
      const app = await buildServiceApp(config, runtime, () => true, undefined, serializers);
      await app.ready();
      serializers.compileAll();
      const document = app.swagger() as unknown as Record<string, unknown>;
      await app.close();
      return document;
    } finally {
      await runtime.database.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The first organisation and admin, on the first start only (see bootstrap). */
async function bootstrapAdmin(config: Config, runtime: Runtime): Promise<void> {
  const boot = await bootstrap(runtime.repos.identities, { email: config.adminEmail, password: config.adminPassword });
  if (boot.generated) {
    // Printed once, on the console only: the generated password is never logged or stored in clear.
    process.stdout.write(`\nFirmscope created the first admin:\n  e-mail:   ${boot.generated.email}\n  password: ${boot.generated.password}\n\n`);
  } else if (boot.createdAdmin) {
    runtime.logger.info({ email: boot.createdAdmin }, 'created the first admin');
  }
}

/** Why the service could not listen, saying what to do about it. */
function listenFailure(error: unknown, config: Config): string {
  const where = `${config.host}:${config.port}`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const detail = error instanceof Error ? error.message : String(error);
  const advice = code === 'EADDRINUSE'
    ? 'the port is already in use (another firmscope or another program); stop it, or set PORT to a free port'
    : code === 'EACCES'
      ? 'permission denied (ports below 1024 need privileges); set PORT to 1024 or above'
      : code === 'EADDRNOTAVAIL'
        ? 'this machine has no such address; set HOST to one of its addresses, or 0.0.0.0'
        : detail;
  return `cannot listen on ${where}: ${advice}. The service did not start and created no admin.`;
}

// A scale-out deployment as processes on one host: two API servers that run no scans, each with a data folder of
// its own, behind one public URL (FIRMSCOPE_BASE_URL, as a load balancer would give them), and three `firmscope
// worker` processes with data folders of their own; they share only PostgreSQL and an S3 bucket (s3rver behind a
// SigV4-checking front), plus the upload secret and token signing key, given to both servers by configuration.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv, FirmscopeProcess } from './cli-process.js';
import { S3_CREDENTIALS, S3_REGION, startTestS3, type TestS3 } from './s3-server.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { freePort, startTestServer, testConfig, waitFor, type TestServer } from './server.js';

export interface FleetWorker {
  process: FirmscopeProcess;
  port: number;
  dataDir: string;
}

export interface Fleet {
  s3: TestS3;
  /** The first API server (it made the database; tests read the database through it). */
  first: TestServer;
  /** The second API server: same database, bucket, secrets and public URL; its own data folder and port. */
  second: RunningServer;
  secondBase: string;
  workers: FleetWorker[];
  close(): Promise<void>;
}

/** Starts the fleet with blobs under `prefix` in the bucket; `workerEnv` adds settings of the workers. */
export async function startFleet(prefix: string, workerEnv: Record<string, string> = {}): Promise<Fleet> {
  const s3 = await startTestS3();
  Object.assign(process.env, { AWS_REGION: S3_REGION, AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey });
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const shared = { ...s3.env(prefix), FIRMSCOPE_WORKERS: '0', FIRMSCOPE_UPLOAD_SECRET: 'fleet-upload-secret-0123456789', FIRMSCOPE_SIGNING_KEY: signingKey };
  const first = await startTestServer({ postgres: true, env: shared });
  const secondDataDir = mkdtempSync(join(tmpdir(), 'firmscope-server-2-'));
  const secondConfig = await testConfig(secondDataDir, { ...shared, DATABASE_URL: first.databaseUrl!, FIRMSCOPE_BASE_URL: first.base });
  const second = await startServer(secondConfig);
  const workers: FleetWorker[] = [];
  for (let i = 0; i < 3; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), `firmscope-worker-${i}-`));
    const port = await freePort();
    const env = childEnv({
      ...s3.env(prefix), DATABASE_URL: first.databaseUrl, FIRMSCOPE_DATA_DIR: dataDir, FIRMSCOPE_WORKER_PORT: String(port), HOST: '127.0.0.1',
      FIRMSCOPE_JOB_POLL_MS: '100', LOG_LEVEL: 'warn', ...workerEnv,
    });
    workers.push({ process: new FirmscopeProcess(`worker-${i}`, ['worker', '--concurrency', '1'], env), port, dataDir });
  }
  for (const w of workers) {
    await waitFor(async () => {
      if (!w.process.running) throw new Error(`${w.process.name} exited while starting:\n${w.process.tail}`);
      return (await fetch(`http://127.0.0.1:${w.port}/health`).then((r) => r.ok, () => false)) || undefined;
    }, 60_000, 100);
  }
  return {
    s3, first, second, secondBase: `http://127.0.0.1:${secondConfig.port}`, workers,
    async close() {
      await Promise.all(workers.map((w) => w.process.stop('SIGKILL')));
      await second.close();
      rmSync(secondDataDir, { recursive: true, force: true });
      await first.close();
      await s3.close();
      for (const w of workers) rmSync(w.dataDir, { recursive: true, force: true });
    },
  };
}

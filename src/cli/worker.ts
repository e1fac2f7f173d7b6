// `firmscope worker`: a separate scan worker. It shares only the database (DATABASE_URL) and the blob store
// (FIRMSCOPE_BLOB_URL for S3; a shared FIRMSCOPE_DATA_DIR otherwise) with the servers: images are downloaded into
// its own work folder under FIRMSCOPE_DATA_DIR. It also sends webhook deliveries and deletes old ones. SIGTERM drains: no new jobs, running scans may finish within
// FIRMSCOPE_SHUTDOWN_GRACE_SECONDS, the rest go back to the queue for another worker.
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { startWorkerEndpoint } from '../jobs/worker-endpoint.js';
import { createMetrics } from '../services/metrics.js';
import { closeRuntime, createWebhookWorker, createWorker, openRuntime } from '../server.js';
import { scheduleWebhookRetention } from '../services/webhook-retention.js';

export function register(program: Command): void {
  program
    .command('worker')
    .description('Run scan jobs from the shared job table (same DATABASE_URL and FIRMSCOPE_BLOB_URL, or data folder, as the server)')
    .option('-c, --concurrency <n>', 'scans run at once', (v) => Number.parseInt(v, 10))
    .action(async (options: { concurrency?: number }) => {
      const config = loadConfig();
      const runtime = await openRuntime(config);
      const concurrency = options.concurrency && options.concurrency > 0 ? options.concurrency : Math.max(1, config.workers);
      const metrics = createMetrics(runtime.repos, 'worker');
      const worker = createWorker(config, runtime, concurrency, metrics);
      const endpoint = config.workerPort ? await startWorkerEndpoint(worker, metrics, config.workerPort, config.host) : undefined;
      worker.start();
      const webhookWorker = createWebhookWorker(config, runtime);
      webhookWorker.start();
      const stopRetention = scheduleWebhookRetention(runtime.repos, config.webhookDeliveryRetentionDays, runtime.logger);
      runtime.logger.info({ owner: worker.owner, concurrency, database: runtime.database.dialect, blobs: config.s3 ? 's3' : 'filesystem', port: endpoint?.port }, 'firmscope worker started');
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        stopRetention();
        runtime.logger.info({ signal, runningJobs: worker.state.running, graceSeconds: config.shutdownGraceSeconds }, 'firmscope worker draining');
        Promise.all([worker.stop(config.shutdownGraceSeconds * 1000), webhookWorker.stop(config.shutdownGraceSeconds * 1000)])
          .then(() => closeRuntime(config, runtime))
          .then(() => new Promise<void>((resolve) => {
            endpoint?.server.closeAllConnections();
            if (endpoint) endpoint.server.close(() => resolve());
            else resolve();
          }))
          .then(() => {
            runtime.logger.info('firmscope worker stopped');
            process.exit(0);
          }, (error: unknown) => {
            runtime.logger.error({ err: error }, 'firmscope worker stopped with an error');
            process.exit(1);
          });
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
}

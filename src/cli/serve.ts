// `firmscope serve`: the HTTP service with in-process scan workers (`npm start`).
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { holdYoungGeneration } from './start-up-heap.js';

export function register(program: Command): void {
  program
    .command('serve')
    .description('Run the API service (configuration from environment variables; see README)')
    .action(async () => {
      const config = loadConfig();
      // Before the service's modules load: their start-up burst must not size the heap for good (start-up-heap.ts).
      holdYoungGeneration();
      const { startServer } = await import('../server.js');
      const server = await startServer(config);
      server.runtime.logger.info({ url: server.url, baseUrl: config.baseUrl, workers: config.workers, database: server.runtime.database.dialect }, 'firmscope listening');
      const stop = () => {
        server.runtime.logger.info({ graceSeconds: config.shutdownGraceSeconds }, 'shutting down: running scans may finish within the grace period');
        server.close({ graceMs: config.shutdownGraceSeconds * 1000 }).then(() => process.exit(0), () => process.exit(1));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

// `firmscope worker`: a separate scan worker on the same database and data folder as the server.
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { createWorker, openRuntime } from '../server.js';

export function register(program: Command): void {
  program
    .command('worker')
    .description('Run scan jobs from the shared job table (same DATABASE_URL and FIRMSCOPE_DATA_DIR as the server)')
    .option('-c, --concurrency <n>', 'scans run at once', (v) => Number.parseInt(v, 10))
    .action(async (options: { concurrency?: number }) => {
      const config = loadConfig();
      const runtime = await openRuntime(config);
      const concurrency = options.concurrency && options.concurrency > 0 ? options.concurrency : Math.max(1, config.workers);
      const worker = createWorker(config, runtime, concurrency);
      worker.start();
      runtime.logger.info({ owner: worker.owner, concurrency, database: runtime.database.dialect }, 'firmscope worker started');
      const stop = () => {
        worker.stop().then(() => runtime.database.close()).then(() => process.exit(0), () => process.exit(1));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

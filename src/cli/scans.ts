// `firmscope scans list [--state running] [--product P]`: the latest scan of each image.
import type { Command } from 'commander';
import { findProduct, listImages, listProducts } from './remote/api.js';
import { outputFormat, printJson, printRows } from './remote/output.js';
import { connect, connectionOptions, type ConnectionFlags } from './remote/session.js';

/** --state words and the reported scan states they mean. */
const STATES: Record<string, string[]> = {
  running: ['in_progress'], completed: ['completed'], failed: ['failed'], cancelled: ['cancelled'],
};

export function register(program: Command): void {
  const scans = program.command('scans').description('Scans on the server');
  connectionOptions(scans.command('list').description('The latest scan of each image, with its phase while running')
    .option('--state <state>', `only scans in this state: ${Object.keys(STATES).join(', ')}`)
    .option('--product <product>', 'only this product (id or name)')
    .option('--output <format>', 'table or json'))
    .action(async (options: ConnectionFlags & { state?: string; product?: string; output?: string }) => {
      if (options.state && !STATES[options.state]) throw new Error(`--state must be one of ${Object.keys(STATES).join(', ')}`);
      const { client } = await connect(options);
      const format = outputFormat(options.output);
      const products = options.product ? [await findProduct(client, options.product)] : await listProducts(client);
      const rows = [];
      for (const product of products) {
        for (const image of await listImages(client, product.id)) {
          const scan = image.latestScan;
          if (!scan || (options.state && !STATES[options.state]!.includes(scan.latestScanState.type))) continue;
          const progress = scan.latestScanState.progress;
          rows.push({ scanId: scan.id, product: product.name, image: image.name, imageId: image.id, state: scan.latestScanState.type,
            ...(progress ? { phase: progress.phase, percent: progress.percent } : {}), createTime: scan.createTime,
            ...(scan.latestScanState.error ? { error: scan.latestScanState.error.message } : {}) });
        }
      }
      if (format === 'json') return printJson(rows);
      printRows(['scan', 'product', 'image', 'state', 'progress', 'created'], rows.map((r) => [
        r.scanId, r.product, r.image, r.error ? `${r.state}: ${r.error}` : r.state, r.phase ? `${r.phase} ${r.percent}%` : '', r.createTime,
      ]), format);
    });
}

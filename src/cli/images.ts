// `firmscope images list --product P`.
import type { Command } from 'commander';
import { findProduct, listImages } from './remote/api.js';
import { outputFormat, printJson, printRows } from './remote/output.js';
import { connect, connectionOptions, type ConnectionFlags } from './remote/session.js';

export function register(program: Command): void {
  const images = program.command('images').description('Firmware images of a product');
  connectionOptions(images.command('list').description('List the images of a product with their latest scan')
    .requiredOption('--product <product>', 'product id or name').option('--output <format>', 'table or json'))
    .action(async (options: ConnectionFlags & { product: string; output?: string }) => {
      const { client } = await connect(options);
      const format = outputFormat(options.output);
      const product = await findProduct(client, options.product);
      const list = await listImages(client, product.id);
      if (format === 'json') return printJson(list);
      printRows(['id', 'name', 'version', 'created', 'scan'], list.map((i) => [i.id, i.name, i.version, i.createTime, i.latestScan?.latestScanState.type]), format);
    });
}

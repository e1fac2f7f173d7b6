// `firmscope products list|create`.
import type { Command } from 'commander';
import { data, listProducts } from './remote/api.js';
import { outputFormat, printJson, printRows } from './remote/output.js';
import { connect, connectionOptions, type ConnectionFlags } from './remote/session.js';

export function register(program: Command): void {
  const products = program.command('products').description('Products on the server');
  connectionOptions(products.command('list').description('List the products').option('--output <format>', 'table or json'))
    .action(async (options: ConnectionFlags & { output?: string }) => {
      const { client } = await connect(options);
      const format = outputFormat(options.output);
      const list = await listProducts(client);
      if (format === 'json') printJson(list);
      else printRows(['id', 'name'], list.map((p) => [p.id, p.name]), format);
    });
  connectionOptions(products.command('create').description('Create a product; prints its id').argument('<name>').option('--description <text>'))
    .action(async (name: string, options: ConnectionFlags & { description?: string }) => {
      const { client } = await connect(options);
      const product = data(await client.POST('/api/v4/products', { body: { name, ...(options.description ? { description: options.description } : {}) } }));
      process.stdout.write(`${product.id.split('/').pop()}\n`);
    });
}

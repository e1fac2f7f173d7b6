// `firmscope clients add`: machine clients for the client_credentials grant (CI pipelines).
import type { Command } from 'commander';
import { addClient } from '../services/identity-admin.js';
import { withRepositories } from './store-session.js';

export function register(program: Command): void {
  const clients = program.command('clients').description('Manage machine clients (client_credentials grant)');
  clients
    .command('add')
    .description('Create a machine client; prints its client id and secret once')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--role <role>', 'admin | editor | viewer')
    .option('--client-id <id>', 'client id (generated from the name when absent)')
    .option('--org <name>', 'organisation', 'default')
    .action(async (options: { name: string; role: string; clientId?: string; org: string }) => {
      const { client, clientSecret } = await withRepositories((repos, config) =>
        addClient(repos.identities, { ...options, publicClientId: config.publicClientId }),
      );
      process.stdout.write(`client_id:     ${client.clientId}\nclient_secret: ${clientSecret}\nrole:          ${client.role} in ${options.org}\n`);
    });
}

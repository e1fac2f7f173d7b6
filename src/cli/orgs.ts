// `firmscope orgs add|list`: organisations are tenants; the instance operator creates them with a first admin.
import type { Command } from 'commander';
import { addOrg } from '../services/identity-admin.js';
import { withRepositories } from './store-session.js';

export function register(program: Command): void {
  const orgs = program.command('orgs').description('Manage organisations (tenants)');
  orgs
    .command('add <name>')
    .description('Create an organisation with its first admin')
    .requiredOption('--admin-email <email>', "the admin's e-mail")
    .option('--admin-password <password>', "the admin's password (generated and printed when absent)")
    .action(async (name: string, options: { adminEmail: string; adminPassword?: string }) => {
      const { org, admin, generatedPassword } = await withRepositories((repos) => addOrg(repos.identities, { name, ...options }));
      process.stdout.write(`created organisation ${org.name} (${org.id}) with admin ${admin.email}\n`);
      if (generatedPassword) process.stdout.write(`password: ${generatedPassword}\n`);
    });
  orgs
    .command('list')
    .description('List organisations')
    .action(async () => {
      await withRepositories(async (repos) => {
        for (const org of await repos.identities.listOrgs()) process.stdout.write(`${org.id}  ${org.name}\n`);
      });
    });
}

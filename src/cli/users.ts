// `firmscope users add|list|unlock`: people who sign in with the password grant.
import type { Command } from 'commander';
import { addUser, unlockUser } from '../services/identity-admin.js';
import { withRepositories } from './store-session.js';

export function register(program: Command): void {
  const users = program.command('users').description('Manage users of an organisation');
  users
    .command('add')
    .description('Add a user (prints a generated password when --password is not given)')
    .requiredOption('--email <email>', 'e-mail address (the username)')
    .requiredOption('--role <role>', 'admin | editor | viewer')
    .option('--password <password>', 'password (at least 8 characters)')
    .option('--org <name>', 'organisation', 'default')
    .action(async (options: { email: string; role: string; password?: string; org: string }) => {
      const { user, generatedPassword } = await withRepositories((repos) => addUser(repos.identities, options));
      process.stdout.write(`added ${user.email} (${user.role}) to ${options.org}, id ${user.id}\n`);
      if (generatedPassword) process.stdout.write(`password: ${generatedPassword}\n`);
    });
  users
    .command('list')
    .description('List users of an organisation')
    .option('--org <name>', 'organisation', 'default')
    .action(async (options: { org: string }) => {
      await withRepositories(async (repos) => {
        const org = await repos.identities.findOrgByName(options.org);
        if (!org) throw new Error(`organisation '${options.org}' does not exist`);
        for (const user of await repos.identities.listUsers(org.id)) process.stdout.write(`${user.id}  ${user.role.padEnd(6)}  ${user.status.padEnd(8)}  ${user.email}\n`);
      });
    });
  users
    .command('unlock')
    .description('End the sign-in delay or lock that failed password attempts put on an e-mail')
    .requiredOption('--email <email>', 'e-mail address (the username)')
    .option('--org <name>', 'organisation the user must belong to')
    .action(async (options: { email: string; org?: string }) => {
      const cleared = await withRepositories((repos) => unlockUser(repos.identities, options));
      process.stdout.write(cleared ? `unlocked ${options.email}: its failed sign-ins are cleared\n` : `${options.email} had no failed sign-ins\n`);
    });
}

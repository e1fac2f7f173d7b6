// `firmscope login --url URL --email E` (password grant; the password is asked without echo, or read from
// standard input when it is not a terminal) and `firmscope logout`.
import type { Command } from 'commander';
import { credentialsPath, login, logout } from './remote/session.js';
import { readPassword } from './remote/prompt.js';

export function register(program: Command): void {
  program
    .command('login')
    .description('Sign in to a Firmscope server; the session is kept in your config folder (mode 0600) and refreshed')
    .option('--url <url>', 'the server (default: FIRMSCOPE_URL)')
    .requiredOption('--email <email>', 'your account')
    .action(async (options: { url?: string; email: string }) => {
      const url = options.url ?? process.env.FIRMSCOPE_URL;
      if (!url) throw new Error('--url is required (or FIRMSCOPE_URL)');
      const password = process.env.FIRMSCOPE_PASSWORD ?? (await readPassword(`Password for ${options.email}: `));
      await login(url, options.email, password);
      process.stderr.write(`firmscope: signed in to ${url} as ${options.email} (session in ${credentialsPath()})\n`);
    });
  program
    .command('logout')
    .description('Forget the cached session')
    .action(async () => {
      process.stderr.write((await logout()) ? 'firmscope: signed out\n' : 'firmscope: no session to forget\n');
    });
}

// The `firmscope` command. Each subcommand lives in its own file and registers itself here, in one list.
// Modules are loaded lazily: only the invoked command's module is imported (the service's modules cost over a
// second of start-up), and all of them only when help is asked for.
import { Command } from 'commander';
import { ENGINE_VERSION } from '../engine/version.js';

type Register = (program: Command) => void;

const commands: Array<{ name: string; load: () => Promise<{ register: Register }> }> = [
  { name: 'unpack', load: () => import('./unpack.js') },
  { name: 'scan', load: () => import('./scan.js') },
  { name: 'vulndb', load: () => import('./vulndb.js') },
  { name: 'serve', load: () => import('./serve.js') },
  { name: 'worker', load: () => import('./worker.js') },
  { name: 'users', load: () => import('./users.js') },
  { name: 'clients', load: () => import('./clients.js') },
  { name: 'orgs', load: () => import('./orgs.js') },
];

async function main(argv: string[]): Promise<void> {
  const program = new Command('firmscope')
    .description('Firmware image security analysis: unpack, inventory, vulnerabilities, crypto, reports')
    .version(ENGINE_VERSION);
  const invoked = commands.find((c) => c.name === argv[2]);
  for (const command of invoked ? [invoked] : commands) (await command.load()).register(program);
  await program.parseAsync(argv);
}

main(process.argv).catch((error: unknown) => {
  process.stderr.write(`firmscope: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});

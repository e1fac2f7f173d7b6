// The `firmscope` command. Each subcommand lives in its own file and registers itself here, in one list.
import { Command } from 'commander';
import { ENGINE_VERSION } from '../engine/version.js';
import { register as scanCommand } from './scan.js';
import { register as unpackCommand } from './unpack.js';
import { register as vulndbCommand } from './vulndb.js';
import { register as serveCommand } from './serve.js';
import { register as workerCommand } from './worker.js';
import { register as usersCommand } from './users.js';
import { register as clientsCommand } from './clients.js';
import { register as orgsCommand } from './orgs.js';

type Register = (program: Command) => void;

const commands: Register[] = [
  unpackCommand,
  scanCommand,
  vulndbCommand,
  serveCommand,
  workerCommand,
  usersCommand,
  clientsCommand,
  orgsCommand,
];

const program = new Command('firmscope')
  .description('Firmware image security analysis: unpack, inventory, vulnerabilities, crypto, reports')
  .version(ENGINE_VERSION);
for (const register of commands) register(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`firmscope: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});

// The `firmscope` command. Each subcommand lives in its own file and registers itself here, in one list.
// Modules are loaded lazily: only the invoked command's module is imported (the service's modules cost over a
// second of start-up); the top-level help lists the commands from this table without loading any of them.
import { isMainThread } from 'node:worker_threads';
import { Command } from 'commander';
import { engineThreadStarted } from '../engine/thread-heap.js';
import { ENGINE_VERSION } from '../engine/version.js';
import { bundleOf, type BundledCommand } from './bundled.js';
import { setCommandLine } from './command-thread.js';
import { delayOptimization } from './tiering.js';

type Register = (program: Command) => void;
type Module = { register: Register };

const commands: Array<{ names: Record<string, string>; load: () => Promise<Module> }> = [
  { names: { unpack: 'Extract a firmware image offline' }, load: () => loadBundled('unpack', () => import('./unpack.js')) },
  { names: { scan: 'Analyse a firmware image offline and print a summary, the result or a report' }, load: () => loadBundled('scan', () => import('./scan.js')) },
  { names: { login: 'Sign in to a Firmscope server (password grant); the session is cached and refreshed', logout: 'Forget the cached session' }, load: () => import('./login.js') },
  { names: { products: 'Products on the server: list, create' }, load: () => import('./products.js') },
  { names: { images: 'Images of a product: list' }, load: () => import('./images.js') },
  { names: { upload: 'Upload an image, follow its scan (--wait) and gate a release (--fail-on …)' }, load: () => import('./upload.js') },
  { names: { scans: 'Scans on the server: list' }, load: () => import('./scans.js') },
  { names: { findings: 'Findings of an image, compared with a baseline, with the CI gates' }, load: () => import('./findings.js') },
  { names: { report: 'Download a report of an image (findings, SBOM, VEX, PQC, CBOM, SARIF)' }, load: () => import('./report.js') },
  { names: { rules: 'Custom YARA rules on the server: list, add, enable, disable, delete' }, load: () => import('./rules.js') },
  { names: { vulndb: 'The local vulnerability database: import feeds' }, load: () => import('./vulndb.js') },
  { names: { serve: 'Run the service (API and workers)' }, load: () => import('./serve.js') },
  { names: { worker: 'Run a scan worker' }, load: () => import('./worker.js') },
  { names: { users: 'Manage user accounts (on the service database)' }, load: () => import('./users.js') },
  { names: { clients: 'Manage machine clients (client_credentials grant)' }, load: () => import('./clients.js') },
  { names: { orgs: 'Manage organisations' }, load: () => import('./orgs.js') },
];

/**
 * An offline command's module: its bundle when there is one to use (bundled.ts), else the module itself. The
 * engine's code is optimised later than V8's default (tiering.ts).
 */
async function loadBundled(name: BundledCommand, unbundled: () => Promise<Module>): Promise<Module> {
  delayOptimization();
  const bundle = bundleOf(name);
  return bundle ? ((await import(bundle.href)) as Module) : unbundled();
}

const EXIT_CODES = `
Exit codes: 0 clean, 1 error, 2 a gate failed (--fail-on, --fail-on-new, --fail-on-kev),
3 the analysis is incomplete (--fail-on-incomplete). \`firmscope <command> --help\` for a command's options.`;

async function main(argv: string[]): Promise<void> {
  if (!isMainThread) engineThreadStarted(); // main runs in a thread only as a large image's command thread
  const program = new Command('firmscope')
    .description('Firmware image security analysis: unpack, inventory, vulnerabilities, crypto, reports; and the client of a Firmscope server')
    .version(ENGINE_VERSION)
    .addHelpText('after', EXIT_CODES);
  setCommandLine(argv.slice(2)); // what `scan` and `unpack` of a large image run again in a thread (command-thread.ts)
  // `firmscope help upload` is `firmscope upload --help`: the named command is loaded either way.
  const name = argv[2] === 'help' ? argv[3] : argv[2];
  const invoked = commands.find((c) => Object.hasOwn(c.names, name ?? ''));
  if (invoked) (await invoked.load()).register(program);
  // No command (or an unknown one): the help lists every command from its summary, nothing is loaded.
  else for (const c of commands) for (const [name, summary] of Object.entries(c.names)) program.command(name).description(summary);
  await program.parseAsync(argv);
}

main(process.argv).catch((error: unknown) => {
  // Every error is one line (CliError messages are written for the user); a stack only with FIRMSCOPE_DEBUG.
  process.stderr.write(`firmscope: ${error instanceof Error ? error.message : String(error)}\n`);
  if (process.env.FIRMSCOPE_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  process.exitCode = (error as { exitCode?: number }).exitCode ?? 1;
});

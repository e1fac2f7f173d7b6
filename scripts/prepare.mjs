// `npm install` / `npm ci`'s last step (the `prepare` script): the liblzma rebuild (optimise-lzma-native.mjs) and
// the TypeScript and web builds (`npm run build`) side by side. Each runs on one core most of the time (xz's
// configure and make, then tsc), so on two cores together they take about as long as the longer one instead of
// the sum. Exits with the build's status; the rebuild is best effort and reports its own outcome.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

function run(command, args) {
  const child = spawn(command, args, { stdio: 'inherit' });
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`firmscope: ${command} ${args.join(' ')} could not start: ${error.message}`);
      resolve(1);
    });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const npm = process.env.npm_execpath;
const [, build] = await Promise.all([
  run(process.execPath, [join(here, 'optimise-lzma-native.mjs')]),
  npm ? run(process.execPath, [npm, 'run', 'build']) : run('npm', ['run', 'build']),
]);
process.exitCode = build;

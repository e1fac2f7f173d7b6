// The `firmscope` command as a child process (serve, worker, vulndb …) for whole-system tests that kill and
// restart it. It runs the compiled CLI (bin/firmscope.js → dist/, built by `npm run build`) when dist/ is newer
// than every source file, and otherwise the sources through tsx, with a notice: a stale dist/ would test old code.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function newestSourceTime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSourceTime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

let cached: string[] | undefined;

/** The node arguments that run `firmscope`. */
export function firmscopeCommand(): string[] {
  if (cached) return cached;
  const built = join(projectRoot, 'dist', 'cli', 'main.js');
  if (existsSync(built) && statSync(built).mtimeMs >= newestSourceTime(join(projectRoot, 'src'))) {
    cached = [join(projectRoot, 'bin', 'firmscope.js')];
  } else {
    console.warn(`NOTICE: ${existsSync(built) ? 'dist/ is older than src/' : 'dist/ is absent'}; running the CLI from the sources through tsx (slower). Run \`npm run build\` to test the built CLI.`);
    cached = ['--import', 'tsx', join(projectRoot, 'src', 'cli', 'main.ts')];
  }
  return cached;
}

/** A running `firmscope` child with the tail of its output (for failure messages). */
export class FirmscopeProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  private output = '';

  constructor(readonly name: string, args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [...firmscopeCommand(), ...args], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-8000);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  get tail(): string {
    return this.output;
  }

  /** Sends `signal` and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.running) this.child.kill(signal);
    await this.exited;
  }
}

/** The environment of a child: the test's, without its database settings, plus `settings`. */
export function childEnv(settings: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DATABASE_URL;
  for (const [key, value] of Object.entries(settings)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

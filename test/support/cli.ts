// Runs `firmscope` commands inside a test: each test gets its own temporary folder, which is also the data folder
// (so `scan` and `vulndb` use a database of their own, never the developer's, and `scan` an analysis cache of its
// own), and a command's output is captured.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, vi } from 'vitest';

export interface CliRun {
  stdout: string;
  stderr: string;
  /** The exit code the command set (0 when it set none). */
  exitCode: number;
}

/** A fresh temporary folder per test, with FIRMSCOPE_DATA_DIR inside it; returns a getter for the folder. */
export function useCliFolder(prefix: string): () => string {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    vi.stubEnv('FIRMSCOPE_DATA_DIR', join(dir, 'data'));
    vi.stubEnv('DATABASE_URL', '');
    vi.stubEnv('XDG_CACHE_HOME', join(dir, 'cache')); // `scan`'s analysis cache: never the developer's
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    process.exitCode = undefined;
    await rm(dir, { recursive: true, force: true });
  });
  return () => dir;
}

/**
 * Runs `firmscope ARGS…` with the commands `register` adds; resolves to what it printed and the exit code it set,
 * or rejects with commander's error (a refused flag, say) after the output is restored.
 */
export async function runCli(register: (program: Command) => void, args: string[]): Promise<CliRun> {
  const program = new Command('firmscope').exitOverride();
  register(program);
  const run = { stdout: '', stderr: '', exitCode: 0 };
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    run.stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    run.stderr += String(chunk);
    return true;
  });
  process.exitCode = undefined;
  try {
    await program.parseAsync(['node', 'firmscope', ...args]);
  } finally {
    vi.restoreAllMocks();
  }
  run.exitCode = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return run;
}

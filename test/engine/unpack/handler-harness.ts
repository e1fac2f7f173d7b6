// Builds handler test inputs with the Debian reference tools. Running a handler is in extract-harness.ts, the test
// bytes are in test/support/bytes.ts.
import { execFileSync } from 'node:child_process';

/** Runs a command in `cwd` and returns its stdout. */
export function tool(cmd: string, args: string[], options: { cwd?: string; input?: Buffer } = {}): Buffer {
  return execFileSync(cmd, args, { cwd: options.cwd, input: options.input, maxBuffer: 256 * 1024 * 1024 });
}

/** Compresses `data` with a command-line filter (e.g. ['xz', '-c']). */
export function compressWith(cmd: string, args: string[], data: Buffer): Buffer {
  return tool(cmd, args, { input: data });
}

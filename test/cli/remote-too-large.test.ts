// The command-line client against a server whose upload limit (FIRMSCOPE_MAX_UPLOAD_BYTES) is smaller than the
// file: the upload ends with a plain message naming the file and the server's reason, never a stack.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { ADMIN, startTestServer, type TestServer } from '../support/server.js';

describe('firmscope upload of a file larger than the server accepts', () => {
  let t: TestServer;
  let dir: string;
  let cli: (args: string[]) => ReturnType<typeof runCli>;
  const saved = { ...process.env };

  beforeAll(async () => {
    t = await startTestServer({ env: { FIRMSCOPE_MAX_UPLOAD_BYTES: '1024' } });
    dir = mkdtempSync(join(tmpdir(), 'firmscope-too-large-'));
    process.env.FIRMSCOPE_CONFIG_DIR = join(dir, 'config');
    for (const k of ['FIRMSCOPE_URL', 'FIRMSCOPE_CLIENT_ID', 'FIRMSCOPE_CLIENT_SECRET']) delete process.env[k];
    const modules = await Promise.all(['login', 'products', 'upload'].map((n) => import(`../../src/cli/${n}.ts`) as Promise<{ register: (p: Command) => void }>));
    cli = (args) => runCli((program) => modules.forEach((m) => m.register(program)), args);
    process.env.FIRMSCOPE_PASSWORD = ADMIN.password;
    await cli(['login', '--url', t.base, '--email', ADMIN.email]);
    delete process.env.FIRMSCOPE_PASSWORD;
    await cli(['products', 'create', 'Camera']);
  }, 60_000);
  afterAll(async () => {
    process.env = saved;
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('says the file is too large for this server', async () => {
    const file = join(dir, 'big.bin');
    writeFileSync(file, Buffer.alloc(64 * 1024, 0x5a));
    await expect(cli(['upload', file, '--product', 'Camera', '--name', 'big'])).rejects.toThrow(/too large for this server/);
    const small = join(dir, 'small.bin');
    writeFileSync(small, Buffer.alloc(512, 0x5a));
    expect((await cli(['upload', small, '--product', 'Camera', '--name', 'small'])).exitCode).toBe(0);
  }, 60_000);
});

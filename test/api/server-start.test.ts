// Start-up order (issue 11): the service listens before it creates the first admin. With its port taken,
// `firmscope serve` exits with a clear message and leaves no admin in a fresh data folder (no generated password
// printed by a process that then died); started again on a free port, it creates the admin as usual.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import { createRepositories } from '../../src/store/repositories.js';
import { openDatabase } from '../../src/store/database.js';
import { childEnv, firmscopeCommand, projectRoot } from '../support/cli-process.js';
import { freshPostgresUrl, testDialects } from '../support/databases.js';
import { ADMIN, passwordToken, testConfig } from '../support/server.js';

/** A port some other program holds for the test. */
async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((done, fail) => server.once('error', fail).listen(0, '127.0.0.1', done));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, server };
}

/** Runs `firmscope serve` to its exit (or kills it after 60 s); resolves to its exit code and output. */
function serve(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...firmscopeCommand(), 'serve'], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((done) => child.once('close', (code) => {
    clearTimeout(timer);
    done({ code, stdout, stderr });
  }));
}

for (const dialect of testDialects()) {
  describe(`start-up with the port taken [${dialect}]`, () => {
    const cleanups: Array<() => Promise<void> | void> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });
    /** A fresh data folder (and PostgreSQL schema), and the port another program holds. */
    async function freshStart() {
      const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-start-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const pg = dialect === 'postgres' ? await freshPostgresUrl() : undefined;
      if (pg) cleanups.push(() => pg.drop());
      const taken = await takenPort();
      cleanups.push(() => new Promise<void>((done) => taken.server.close(() => done())));
      return { dataDir, pg, taken };
    }

    it('exits with a clear message and creates no admin; on a free port the admin is created', async () => {
      const { dataDir, pg, taken } = await freshStart();

      // No admin configured: the first start would generate a password and print it.
      const run = await serve(childEnv({
        PORT: String(taken.port), HOST: '127.0.0.1', FIRMSCOPE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', FIRMSCOPE_ADMIN_EMAIL: undefined,
        FIRMSCOPE_ADMIN_PASSWORD: undefined, DATABASE_URL: pg?.url,
      }));
      const database = await openDatabase({ url: pg?.url, dataDir });
      const { identities } = createRepositories(database.db, database.dialect);
      const users = (await Promise.all((await identities.listOrgs()).map((org) => identities.listUsers(org.id)))).flat();
      await database.close();
      expect(users).toEqual([]);
      expect(run.stdout).not.toMatch(/password/i);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`firmscope: cannot listen on 127.0.0.1:${taken.port}: the port is already in use`);
      expect(run.stderr).toContain('set PORT to a free port');

      // The same folder on a free port: the service starts and creates the configured admin.
      const config = await testConfig(dataDir, { FIRMSCOPE_WORKERS: '0', ...(pg ? { DATABASE_URL: pg.url } : {}) });
      const server = await startServer(config);
      cleanups.push(() => server.close());
      expect(await passwordToken(config.baseUrl, ADMIN.email, ADMIN.password)).toMatch(/^ey/);
    }, 90_000);

    it('startServer rejects with the reason and leaves the data folder without an admin', async () => {
      const { dataDir, pg, taken } = await freshStart();
      const config = await testConfig(dataDir, pg ? { DATABASE_URL: pg.url } : {}, taken.port);
      const failure = await startServer(config).then(() => undefined, (error: unknown) => error);
      const database = await openDatabase({ url: pg?.url, dataDir });
      const { identities } = createRepositories(database.db, database.dialect);
      expect(await identities.findUserByEmail(ADMIN.email)).toBeUndefined();
      await database.close();
      expect(String((failure as Error | undefined)?.message)).toMatch(/^cannot listen on 127\.0\.0\.1:\d+: the port is already in use .*created no admin\.$/);
    });
  });
}

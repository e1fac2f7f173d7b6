// The server listens before it creates the first admin (so a taken port leaves no admin behind); until the admin
// exists, /healthz answers 503 'starting', so a client that waits for health never signs in too early.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { startServer } from '../../src/server.js';
import { ADMIN, passwordToken, testConfig, waitFor } from '../support/server.js';

const gate = vi.hoisted(() => {
  let open!: () => void;
  return { opened: new Promise<void>((resolve) => (open = resolve)), open: () => open() };
});
vi.mock('../../src/services/bootstrap.js', async (original) => {
  const real = await original<typeof import('../../src/services/bootstrap.js')>();
  return { ...real, bootstrap: async (...args: Parameters<typeof real.bootstrap>) => (await gate.opened, real.bootstrap(...args)) };
});

const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-ready-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('answers 503 starting until the first admin exists, then 200, and the admin can sign in', async () => {
  const config = await testConfig(dataDir, { FIRMSCOPE_WORKERS: '0' });
  const base = config.baseUrl;
  const starting = startServer(config);
  const early = await waitFor(async () => fetch(`${base}/healthz`).then((r) => r, () => undefined), 20_000, 20);
  expect(early.status).toBe(503);
  expect(await early.json()).toMatchObject({ status: 'starting' });
  gate.open();
  const server = await starting;
  try {
    const late = await fetch(`${base}/healthz`);
    expect(late.status).toBe(200);
    expect(await late.json()).toMatchObject({ status: 'ok' });
    expect(await passwordToken(base, ADMIN.email, ADMIN.password)).toMatch(/^ey/);
  } finally {
    await server.close();
  }
});

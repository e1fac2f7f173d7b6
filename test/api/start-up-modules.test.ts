// Issue 15 (peak RSS of the service): `firmscope serve` loads at start only what it needs to answer. Report
// renderers (PDF fonts, the CycloneDX library), the AWS SDK (without FIRMSCOPE_BLOB_URL), the YARA-X compiler
// and the unpacker load at their first use, and response serializers compile at a route's first response.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { lazySerializers } from '../../src/api/lazy-serializers.js';
import { childEnv, FirmscopeProcess, projectRoot } from '../support/cli-process.js';
import { ADMIN, freePort } from '../support/server.js';

/** Modules the idle API process must not hold (paths as the loader sees them, src/ or dist/). */
const LAZY = [
  /\/node_modules\/pdfkit\//, /\/node_modules\/@cyclonedx\//, /\/node_modules\/@aws-sdk\//, /\/node_modules\/@litko\/yara-x/,
  /\/(src|dist)\/reports\/(index|findings-pdf|pdf-parts|sbom-cyclonedx)\.[jt]s$/, /\/(src|dist)\/engine\/unpack\//, /\/(src|dist)\/engine\/malware\/rules\.[jt]s$/,
];

describe('firmscope serve at start', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('loads no report renderer, AWS SDK, YARA-X or unpacker until a request needs one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-modules-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const log = join(dataDir, 'modules.txt');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const serve = new FirmscopeProcess('serve', ['serve'], childEnv({
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${join(projectRoot, 'test', 'support', 'module-log.mjs')}`.trim(),
      FIRMSCOPE_MODULE_LOG: log, PORT: String(port), HOST: '127.0.0.1', FIRMSCOPE_BASE_URL: base, FIRMSCOPE_DATA_DIR: dataDir,
      FIRMSCOPE_ADMIN_EMAIL: ADMIN.email, FIRMSCOPE_ADMIN_PASSWORD: ADMIN.password, FIRMSCOPE_WORKERS: '0', LOG_LEVEL: 'silent', FIRMSCOPE_BLOB_URL: undefined,
    }));
    cleanups.push(async () => {
      serve.child.kill('SIGKILL');
      await serve.exited;
    });
    const deadline = Date.now() + 90_000;
    while (!(await fetch(`${base}/healthz`).then((r) => r.ok, () => false))) {
      if (!serve.running || Date.now() > deadline) throw new Error(`serve did not start:\n${serve.tail}`);
      await new Promise((done) => setTimeout(done, 200));
    }
    expect((await fetch(`${base}/api/v4/openapi.json`)).status).toBe(200);
    expect(existsSync(log), 'the module log was written (the --import hook ran)').toBe(true);
    const loaded = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    expect(loaded.some((url) => /\/(src|dist)\/app\.[jt]s$/.test(url)), 'the log lists the service modules').toBe(true);
    expect(loaded.filter((url) => LAZY.some((pattern) => pattern.test(url)))).toEqual([]);
  }, 120_000);
});

describe('lazySerializers', () => {
  function app(serializers = lazySerializers()) {
    const fastify = Fastify({ schemaController: { compilersFactory: { buildSerializer: serializers.buildSerializer } } });
    let calls = 0;
    fastify.get('/thing', { schema: { response: { 200: Type.Object({ id: Type.String(), size: Type.Integer() }) } } }, async () => {
      calls += 1;
      return { id: 'a', size: 3, secret: 'never sent' };
    });
    return { fastify, calls: () => calls };
  }

  it('serializes through the route schema at the first response and after (fields outside it never leave)', async () => {
    const { fastify } = app();
    await fastify.ready();
    for (let i = 0; i < 2; i++) {
      const response = await fastify.inject({ method: 'GET', url: '/thing' });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('{"id":"a","size":3}');
    }
    await fastify.close();
  });

  it('compileAll builds every pending serializer and names the route of a schema it cannot compile', async () => {
    const serializers = lazySerializers();
    const { fastify } = app(serializers);
    fastify.get('/broken', { schema: { response: { 200: { type: 'object', properties: { x: { $ref: '#/definitions/missing' } } } } } }, async () => ({ x: 1 }));
    await fastify.ready();
    expect(() => serializers.compileAll()).toThrow(/GET \/broken \(200\)/);
    await fastify.close();
  });
});

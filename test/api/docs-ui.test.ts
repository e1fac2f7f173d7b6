// The interactive API documentation: Swagger UI's page and assets are served (by @fastify/static, whose
// content-disposition dependency is pinned to a Node 20 release in package.json's overrides).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

describe('API documentation UI', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it('serves the Swagger UI page and its static assets', async () => {
    const page = await fetch(`${server.base}/docs/static/index.html`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('swagger-ui');
    const css = await fetch(`${server.base}/docs/static/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect((await css.text()).length).toBeGreaterThan(1000);
    const missing = await fetch(`${server.base}/docs/static/no-such-file.js`);
    expect(missing.status).toBe(404);
  });
});

// Deliveries survive a restart: a delivery whose first attempt got a 500, and one queued while no worker ran,
// both arrive (signed, with their webhook-id) after the service stopped and started again on the same data
// folder or database. On each dialect.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server.js';
import { freshPostgresUrl, testDialects } from '../support/databases.js';
import { ADMIN, call, passwordToken, testConfig, waitFor } from '../support/server.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

for (const dialect of testDialects()) {
  describe(`webhook deliveries across a restart [${dialect}]`, () => {
    let receiver: WebhookReceiver;
    let dataDir: string;
    let pg: Awaited<ReturnType<typeof freshPostgresUrl>> | undefined;
    let server: RunningServer | undefined;

    const start = async (env: Record<string, string> = {}) => {
      const config = await testConfig(dataDir, {
        FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE: '1', FIRMSCOPE_WEBHOOK_RETRY_SCHEDULE: '1500ms', ...(pg ? { DATABASE_URL: pg.url } : {}), ...env,
      });
      server = await startServer(config);
      return { base: config.baseUrl, token: await passwordToken(config.baseUrl, ADMIN.email, ADMIN.password) };
    };
    const stop = async () => {
      await server?.close();
      server = undefined;
    };
    const delivery = async (base: string, token: string, webhookId: string, deliveryId: string) =>
      (await call(base, token, 'GET', `/api/v4/webhooks/${webhookId}/deliveries`)).body.deliveries.find((d: { id: string }) => d.id === deliveryId);

    beforeAll(async () => {
      receiver = await startReceiver();
      dataDir = mkdtempSync(join(tmpdir(), 'firmscope-webhook-restart-'));
      pg = dialect === 'postgres' ? await freshPostgresUrl() : undefined;
    });
    afterAll(async () => {
      await stop();
      await receiver?.close();
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('a delivery retried after a 500 arrives once the service is back', async () => {
      let { base, token } = await start();
      const hook = (await call(base, token, 'POST', '/api/v4/webhooks', { url: `${receiver.url}?w=retry`, events: ['scan.completed'] })).body;
      receiver.answer = () => 500;
      const test = (await call(base, token, 'POST', `/api/v4/webhooks/${hook.id}:test`)).body;
      const first = await waitFor(async () => {
        const d = await delivery(base, token, hook.id, test.id);
        return d?.attempts === 1 ? d : undefined;
      }, 20_000, 50);
      expect(first).toMatchObject({ status: 'pending', responseCode: 500 });
      await stop(); // the second attempt is due in ≈ 1.5 s: nobody is running to make it
      receiver.answer = () => 204;
      expect(receiver.received).toHaveLength(1);

      ({ base, token } = await start());
      const done = await waitFor(async () => {
        const d = await delivery(base, token, hook.id, test.id);
        return d?.status === 'succeeded' ? d : undefined;
      }, 20_000, 100);
      expect(done).toMatchObject({ attempts: 2, responseCode: 204 });
      expect(receiver.received).toHaveLength(2);
      for (const r of receiver.received) {
        expect(r.headers['webhook-id']).toBe(test.messageId);
        expect(receiver.verify(hook.secret, r)).toMatchObject({ type: 'webhook.test' });
      }
      await stop();
    }, 60_000);

    it('a delivery queued while no worker runs is sent by the next one', async () => {
      let { base, token } = await start({ FIRMSCOPE_WORKERS: '0' });
      const hook = (await call(base, token, 'POST', '/api/v4/webhooks', { url: `${receiver.url}?w=queued`, events: ['image.created'] })).body;
      const test = (await call(base, token, 'POST', `/api/v4/webhooks/${hook.id}:test`)).body;
      await new Promise((r) => setTimeout(r, 300));
      expect(await delivery(base, token, hook.id, test.id)).toMatchObject({ status: 'pending', attempts: 0 });
      await stop();

      ({ base, token } = await start());
      await waitFor(async () => ((await delivery(base, token, hook.id, test.id))?.status === 'succeeded' ? true : undefined), 20_000, 100);
      const got = receiver.received.filter((r) => r.path.endsWith('?w=queued'));
      expect(got).toHaveLength(1);
      expect(receiver.verify(hook.secret, got[0]!)).toMatchObject({ type: 'webhook.test', data: { webhookId: hook.id } });
    }, 60_000);
  });
}

// Webhook deliveries sent by a separate `firmscope worker` process (the server runs no workers), and a worker
// killed with SIGKILL between two attempts of a delivery: the next worker process makes the retry, and the
// receiver gets the event signed, with its webhook-id. On each dialect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, FirmscopeProcess } from '../support/cli-process.js';
import { testDialects } from '../support/databases.js';
import { ADMIN, call, freePort, passwordToken, startTestServer, waitFor, type TestServer } from '../support/server.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

for (const dialect of testDialects()) {
  describe(`webhook deliveries by firmscope worker processes [${dialect}]`, () => {
    let t: TestServer;
    let receiver: WebhookReceiver;
    let token: string;
    const processes: FirmscopeProcess[] = [];

    const startWorker = async (name: string) => {
      const port = await freePort();
      const worker = new FirmscopeProcess(name, ['worker', '--concurrency', '1'], childEnv({
        DATABASE_URL: t.databaseUrl, FIRMSCOPE_DATA_DIR: t.dataDir, FIRMSCOPE_WORKER_PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn',
        FIRMSCOPE_JOB_POLL_MS: '100', FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE: '1', FIRMSCOPE_WEBHOOK_RETRY_SCHEDULE: '2s',
      }));
      processes.push(worker);
      await waitFor(async () => {
        if (!worker.running) throw new Error(`${name} exited while starting:\n${worker.tail}`);
        return (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false)) || undefined;
      }, 60_000, 100);
      return worker;
    };
    const delivery = async (webhookId: string, deliveryId: string) =>
      (await call(t.base, token, 'GET', `/api/v4/webhooks/${webhookId}/deliveries`)).body.deliveries.find((d: { id: string }) => d.id === deliveryId);

    beforeAll(async () => {
      receiver = await startReceiver();
      t = await startTestServer({ postgres: dialect === 'postgres', env: { FIRMSCOPE_WORKERS: '0', FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE: '1' } });
      token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
    }, 60_000);
    afterAll(async () => {
      await Promise.all(processes.map((p) => p.stop('SIGKILL')));
      await t?.close();
      await receiver?.close();
    });

    it('a worker killed between two attempts leaves the retry to the next worker', async () => {
      const hook = (await call(t.base, token, 'POST', '/api/v4/webhooks', { url: receiver.url, events: ['scan.completed'] })).body;
      receiver.answer = (_request, index) => (index === 0 ? 500 : 204);
      const first = await startWorker('worker-1');
      const test = (await call(t.base, token, 'POST', `/api/v4/webhooks/${hook.id}:test`)).body;
      await waitFor(async () => ((await delivery(hook.id, test.id))?.attempts === 1 ? true : undefined), 30_000, 50);
      await first.stop('SIGKILL');
      expect(await delivery(hook.id, test.id)).toMatchObject({ status: 'pending', attempts: 1, responseCode: 500 });

      await startWorker('worker-2');
      const done = await waitFor(async () => {
        const d = await delivery(hook.id, test.id);
        return d?.status === 'succeeded' ? d : undefined;
      }, 30_000, 100);
      expect(done).toMatchObject({ attempts: 2, responseCode: 204 });
      expect(receiver.received).toHaveLength(2);
      for (const r of receiver.received) {
        expect(r.headers['webhook-id']).toBe(test.messageId);
        expect(receiver.verify(hook.secret, r)).toMatchObject({ type: 'webhook.test', data: { webhookId: hook.id } });
      }
    }, 120_000);
  });
}

// Webhooks end to end: a receiver on 127.0.0.1 (FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE=1) gets signed events of images,
// scans and finding statuses, verified with the standardwebhooks library (a tampered body fails); a 500 answer is
// retried on the (fast, injected) schedule; a webhook whose delivery failed every retry is disabled with the
// reason, gets no new deliveries, and after being enabled again a redelivery arrives with the original webhook-id;
// rotating the secret signs later deliveries with the new one (on each dialect). Without the flag, private targets
// are refused (422).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveScan } from '../../src/services/scan-transitions.js';
import { testDialects } from '../support/databases.js';
import { call, passwordToken, startTestServer, waitFor, ADMIN, type TestServer } from '../support/server.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const ALL_EVENTS = ['image.created', 'scan.completed', 'scan.failed', 'scan.cancelled', 'finding.escalated', 'finding.statusChanged'];

for (const dialect of testDialects()) describe(`webhooks [${dialect}]`, () => {
  let t: TestServer;
  let receiver: WebhookReceiver;
  let admin: string;
  let productId: string;

  const received = (tag: string) => receiver.received.filter((r) => r.path.endsWith(`?w=${tag}`));
  const deliveries = async (webhookId: string) => (await call(t.base, admin, 'GET', `/api/v4/webhooks/${webhookId}/deliveries?size=100`)).body;
  const settled = (webhookId: string, deliveryId: string) => waitFor(async () => {
    const found = (await deliveries(webhookId)).deliveries.find((d: { id: string }) => d.id === deliveryId);
    return found && found.status !== 'pending' ? found : undefined;
  }, 20_000, 50);
  const create = async (tag: string, events: string[]) => {
    const r = await call(t.base, admin, 'POST', '/api/v4/webhooks', { url: `${receiver.url}?w=${tag}`, events, description: tag });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as { id: string; secret: string };
  };
  const upload = async (name: string) => {
    const form = new FormData();
    form.set('imageName', name);
    form.set('file', new Blob([Buffer.from(`firmware bytes ${name}`)]), `${name}.bin`);
    const r = await call(t.base, admin, 'POST', `/api/v4/products/${productId}/images:upload`, form);
    expect(r.status).toBe(201);
    return r.body as { id: string; scans: Array<{ id: string }> };
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestServer({ postgres: dialect === 'postgres', env: { FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE: '1', FIRMSCOPE_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms' } });
    admin = await passwordToken(t.base, ADMIN.email, ADMIN.password);
    productId = String((await call(t.base, admin, 'POST', '/api/v4/products', { name: 'hooked' })).body.id).split('/')[1]!;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('refuses a URL that is not http(s) and unknown events with a 400 that says why', async () => {
    const ftp = await call(t.base, admin, 'POST', '/api/v4/webhooks', { url: 'ftp://example.com/hook', events: ['scan.completed'] });
    expect(ftp.status).toBe(400);
    expect(ftp.body.message).toMatch(/http or https/);
    const unknown = await call(t.base, admin, 'POST', '/api/v4/webhooks', { url: receiver.url, events: ['scan.completed', 'scan.exploded'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/unknown event 'scan.exploded'; known events: image.created/);
    expect((await call(t.base, admin, 'GET', '/api/v4/webhooks/not-an-id')).status).toBe(400);
  });

  it('sends signed events of images, scans and finding statuses that verify with the library; a tampered body does not', async () => {
    const hook = await create('all', ALL_EVENTS);
    expect(hook.secret).toMatch(/^whsec_/);
    const listed = await call(t.base, admin, 'GET', '/api/v4/webhooks');
    expect(listed.body.webhooks.find((w: { id: string }) => w.id === hook.id)).toMatchObject({ events: ALL_EVENTS, enabled: true, failureStreak: 0 });
    expect(JSON.stringify(listed.body)).not.toContain(hook.secret);
    expect((await call(t.base, admin, 'GET', `/api/v4/webhooks/${hook.id}`)).body.secret).toBeUndefined();

    const image = await upload('one');
    const created = await waitFor(async () => received('all').find((r) => JSON.parse(r.body).type === 'image.created'), 20_000, 50);
    const body = receiver.verify(hook.secret, created) as { type: string; timestamp: string; data: Record<string, any> };
    expect(body).toMatchObject({ type: 'image.created', data: { productId, imageId: image.id, scanId: image.scans[0]!.id, name: 'one' } });
    expect(body.data.links.image).toBe(`${t.base}/api/v4/products/${productId}/images/${image.id}`);
    expect(created.headers['webhook-id']).toMatch(/^msg_/);
    expect(() => receiver.verify(hook.secret, { ...created, body: created.body.replace(image.id, image.id.replace(/.$/, image.id.endsWith('0') ? '1' : '0')) })).toThrow(/signature/i);

    // the scan of the upload ends (completed or failed: these bytes are no real firmware) and says so
    const ended = await waitFor(async () => received('all').map((r) => JSON.parse(r.body)).find((b) => b.type.startsWith('scan.') && b.data.scanId === image.scans[0]!.id), 60_000, 100);
    expect(['scan.completed', 'scan.failed']).toContain(ended.type);
    expect(ended.data.links.scan).toBe(`${t.base}/api/v4/products/${productId}/images/${image.id}/scans/${image.scans[0]!.id}`);

    // a cancelled scan, and a finding whose status changes
    const { repos } = t.server.runtime;
    const stored = (await repos.images.getById(image.id))!;
    const authorId = (await repos.identities.findUserByEmail(ADMIN.email))!.id;
    const scan = await repos.scans.create({ imageId: image.id, productId, orgId: stored.orgId, authorId });
    const cancel = await call(t.base, admin, 'POST', `/api/v4/products/${productId}/images/${image.id}/scans/${scan.id}/states`, { type: 'cancelled' });
    expect(cancel.status).toBeLessThan(300);
    await waitFor(async () => receiver.events('scan.cancelled').find((b) => b.data.scanId === scan.id), 20_000, 50);

    const other = await repos.scans.create({ imageId: image.id, productId, orgId: stored.orgId, authorId });
    await moveScan(repos, other.id, ['new'], 'running');
    await repos.results.store({ scanId: other.id, imageId: image.id, productId }, {
      components: [], cryptoAssets: [],
      findings: [{
        fingerprint: 'hook-fp-1', findingType: 'dependencyVulnerability', pname: 'CVE-2023-1111', name: 'busybox CVE-2023-1111', severity: 'high',
        identifiers: [{ cve: 'CVE-2023-1111' }], occurrences: [{ path: 'bin/busybox', evidence: 'BusyBox v1.30.1' }],
        component: { ref: 'busybox@1.30.1', name: 'busybox', version: '1.30.1' },
      }],
    });
    await moveScan(repos, other.id, ['running'], 'done', { baseUrl: t.base });
    await waitFor(async () => receiver.events('scan.completed').find((b) => b.data.scanId === other.id), 20_000, 50);
    const grid = await call(t.base, admin, 'POST', '/api/v4/grids/findings:gridList', { filters: [{ field: 'imageId', value: image.id, comparator: 'equals' }] });
    const findingId: string = grid.body.rows.find((r: { scanId: string }) => r.scanId === other.id)?.id;
    expect(findingId, JSON.stringify(grid.body)).toBeDefined();
    const patched = await call(t.base, admin, 'PATCH', `/api/v4/products/${productId}/findings/${findingId}`, { issueStatus: 'rejected', comment: 'not shipped' });
    expect(patched.status).toBe(200);
    const changed = await waitFor(async () => receiver.events('finding.statusChanged').find((b) => b.data.findingId === findingId), 20_000, 50);
    expect(changed.data).toMatchObject({ productId, findingId, status: 'rejected', previousStatus: 'new' });
    expect(changed.data.links.finding).toBe(`${t.base}/api/v4/products/${productId}/findings/${findingId}`);
    for (const r of received('all')) expect(() => receiver.verify(hook.secret, r)).not.toThrow();

    // the receiver has the last event before its sender records the answer: wait for the record
    const page = await waitFor(async () => {
      const p = await deliveries(hook.id);
      return p.deliveries.some((d: { status: string }) => d.status === 'pending') ? undefined : p;
    }, 20_000, 50);
    expect(page.total).toBeGreaterThanOrEqual(5);
    expect(page.deliveries[0]).toMatchObject({ status: 'succeeded', attempts: 1, responseCode: 204 });
    expect(typeof page.deliveries[0].durationMs).toBe('number');
    const second = await call(t.base, admin, 'GET', `/api/v4/webhooks/${hook.id}/deliveries?page=2&size=2`);
    expect(second.body).toMatchObject({ page: 2, size: 2, total: page.total });
    expect(second.body.deliveries.map((d: { id: string }) => d.id)).toEqual(page.deliveries.slice(2, 4).map((d: { id: string }) => d.id));
    await call(t.base, admin, 'DELETE', `/api/v4/webhooks/${hook.id}`);
  }, 120_000);

  it('retries after 500 answers until the receiver takes it, with the same webhook-id', async () => {
    const hook = await create('retry', ['scan.completed']);
    receiver.answer = (request) => (request.path.endsWith('?w=retry') && received('retry').length <= 2 ? 500 : 204);
    const test = await call(t.base, admin, 'POST', `/api/v4/webhooks/${hook.id}:test`);
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ eventType: 'webhook.test', status: 'pending', attempts: 0 });
    const done = await settled(hook.id, test.body.id);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 3, responseCode: 204 });
    const attempts = received('retry');
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((r) => r.headers['webhook-id']))).toEqual(new Set([test.body.messageId]));
    for (const r of attempts) expect(receiver.verify(hook.secret, r)).toMatchObject({ type: 'webhook.test', data: { webhookId: hook.id } });
    expect((await call(t.base, admin, 'GET', `/api/v4/webhooks/${hook.id}`)).body).toMatchObject({ enabled: true, failureStreak: 0 });
    receiver.answer = () => 204;
  }, 60_000);

  it('disables a webhook whose delivery failed every retry; enabled again, a redelivery arrives', async () => {
    const hook = await create('dead', ['image.created']);
    receiver.answer = (request) => (request.path.endsWith('?w=dead') ? 500 : 204);
    const test = await call(t.base, admin, 'POST', `/api/v4/webhooks/${hook.id}:test`);
    const failed = await settled(hook.id, test.body.id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 4, responseCode: 500, error: 'HTTP 500' });
    const disabled = (await call(t.base, admin, 'GET', `/api/v4/webhooks/${hook.id}`)).body;
    expect(disabled).toMatchObject({ enabled: false, failureStreak: 4 });
    expect(disabled.disabledReason).toMatch(/failed all 4 attempts .*HTTP 500/);

    // a disabled webhook gets no new deliveries, and refuses tests and redeliveries
    await upload('two');
    await new Promise((r) => setTimeout(r, 500));
    expect((await deliveries(hook.id)).total).toBe(1);
    expect((await call(t.base, admin, 'POST', `/api/v4/webhooks/${hook.id}:test`)).status).toBe(409);
    expect((await call(t.base, admin, 'POST', `/api/v4/webhooks/${hook.id}/deliveries/${test.body.id}:redeliver`)).status).toBe(409);

    receiver.answer = () => 204;
    const enabled = await call(t.base, admin, 'PATCH', `/api/v4/webhooks/${hook.id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, failureStreak: 0 });
    expect(enabled.body.disabledReason).toBeUndefined();
    const again = await call(t.base, admin, 'POST', `/api/v4/webhooks/${hook.id}/deliveries/${test.body.id}:redeliver`);
    expect(again.status).toBe(202);
    expect(await settled(hook.id, again.body.id)).toMatchObject({ status: 'succeeded', attempts: 1, messageId: test.body.messageId });
    expect(received('dead').at(-1)!.headers['webhook-id']).toBe(test.body.messageId);
  }, 60_000);

  it('rotating the secret signs later deliveries with the new secret only', async () => {
    const hook = await create('rotate', ['scan.failed']);
    const rotated = await call(t.base, admin, 'POST', `/api/v4/webhooks/${hook.id}:rotateSecret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.secret);
    const test = await call(t.base, admin, 'POST', `/api/v4/webhooks/${hook.id}:test`);
    await settled(hook.id, test.body.id);
    // the test's own delivery: a scan of an earlier test may fail meanwhile and reach this hook as well
    const got = received('rotate').find((r) => r.headers['webhook-id'] === test.body.messageId)!;
    expect(got).toBeDefined();
    expect(receiver.verify(rotated.body.secret, got)).toMatchObject({ type: 'webhook.test' });
    expect(() => receiver.verify(hook.secret, got)).toThrow();
  }, 60_000);
});

describe('webhook targets without FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { FIRMSCOPE_WORKERS: '0' } });
  }, 60_000);
  afterAll(async () => t?.close());

  it('refuses loopback and private targets with a 422 that names the address', async () => {
    const admin = await passwordToken(t.base, ADMIN.email, ADMIN.password);
    for (const url of ['http://127.0.0.1:9/hook', 'http://localhost/hook', 'http://10.1.2.3/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest/meta-data']) {
      const r = await call(t.base, admin, 'POST', '/api/v4/webhooks', { url, events: ['scan.completed'] });
      expect(r.status, url).toBe(422);
      expect(r.body.message, url).toMatch(/inside the network; refused .*FIRMSCOPE_WEBHOOK_ALLOW_PRIVATE=1/);
    }
    expect((await call(t.base, admin, 'GET', '/api/v4/webhooks')).body.webhooks).toEqual([]);
  });
});

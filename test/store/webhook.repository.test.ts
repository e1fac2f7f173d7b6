// Webhooks and their deliveries on both dialects: scoped by organisation; only enabled subscribers get an event;
// an event's deliveries and jobs commit or roll back with the change that emits it; a delivery's attempts follow
// the retry schedule (an injected sender, no network) until it succeeds, or fails every retry and disables the
// webhook; a job run twice changes nothing; re-matching that raises a finding emits finding.escalated.
import { beforeAll, expect, it } from 'vitest';
import type { VulnerabilityRecord } from '../../src/engine/vulns/source.js';
import { failAbandonedDelivery } from '../../src/jobs/webhook-job.js';
import { attemptDelivery, jittered } from '../../src/services/webhook-delivery.js';
import { emitEvent, WEBHOOK_JOB } from '../../src/services/webhook-events.js';
import type { DeliveryAttempt } from '../../src/services/webhook-send.js';
import { rematchLatestImages } from '../../src/services/vuln-rematch.js';
import type { Job } from '../../src/store/job.repository.js';
import type { Repositories } from '../../src/store/repositories.js';
import { VulnerabilityImporter } from '../../src/store/vulns-importer.js';
import { VulnerabilityReader } from '../../src/store/vulns-reader.js';
import { describeEachDatabase } from '../support/databases.js';
import { reposOf } from '../support/repos-of.js';
import { productWithImages } from '../support/store-fixtures.js';

const hook = (orgId: string, events: string[], url = 'https://hooks.example.com/x') => ({ orgId, url, events, description: 'd', secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=', authorId: null });

describeEachDatabase('webhook repository and deliveries', (get) => {
  let repos: Repositories;
  let orgA: string;
  let orgB: string;

  beforeAll(async () => {
    repos = reposOf(get().db);
    orgA = (await repos.identities.createOrg('hooks-a')).id;
    orgB = (await repos.identities.createOrg('hooks-b')).id;
  });

  const jobsOf = async (deliveryId: string) =>
    (await get().db.selectFrom('jobs').selectAll().where('kind', '=', WEBHOOK_JOB).execute()).filter((j) => JSON.parse(j.payload).deliveryId === deliveryId);

  it('keeps webhooks per organisation; enabling again clears the reason and the streak; delete takes the deliveries', async () => {
    const one = await repos.webhooks.create(hook(orgA, ['scan.completed', 'scan.failed']));
    expect(one).toMatchObject({ orgId: orgA, events: ['scan.completed', 'scan.failed'], enabled: true, disabledReason: null, failureStreak: 0 });
    expect(await repos.webhooks.get(orgB, one.id)).toBeUndefined();
    expect(await repos.webhooks.update(orgB, one.id, { enabled: false })).toBeUndefined();
    expect(await repos.webhooks.delete(orgB, one.id)).toBe(false);
    expect((await repos.webhooks.list(orgA)).map((w) => w.id)).toContain(one.id);
    expect(await repos.webhooks.list(orgB)).toEqual([]);

    expect(await repos.webhooks.recordOutcome(one.id, false)).toBe(1);
    expect(await repos.webhooks.recordOutcome(one.id, false)).toBe(2);
    await repos.webhooks.disable(one.id, 'kept failing');
    expect(await repos.webhooks.get(orgA, one.id)).toMatchObject({ enabled: false, disabledReason: 'kept failing', failureStreak: 2 });
    expect(await repos.webhooks.update(orgA, one.id, { enabled: true, events: ['scan.failed'] })).toMatchObject({ enabled: true, disabledReason: null, failureStreak: 0, events: ['scan.failed'] });

    for (let i = 0; i < 3; i++) await repos.webhooks.addDelivery({ webhookId: one.id, eventType: 'scan.failed', payload: `{"n":${i}}` });
    const page = await repos.webhooks.deliveries(one.id, { offset: 1, limit: 1 });
    expect(page.total).toBe(3);
    expect(page.rows).toHaveLength(1);
    expect((await repos.webhooks.deliveries(one.id, { offset: 0, limit: 10, status: 'succeeded' })).total).toBe(0);
    expect(await repos.webhooks.delete(orgA, one.id)).toBe(true);
    expect((await repos.webhooks.deliveries(one.id, { offset: 0, limit: 10 })).total).toBe(0);
  });

  it('an event reaches the enabled subscribers only, and commits or rolls back with the change', async () => {
    const scans = await repos.webhooks.create(hook(orgA, ['scan.completed']));
    const images = await repos.webhooks.create(hook(orgA, ['image.created']));
    const off = await repos.webhooks.create(hook(orgA, ['scan.completed']));
    await repos.webhooks.disable(off.id, 'off');
    const elsewhere = await repos.webhooks.create(hook(orgB, ['scan.completed']));

    await expect(repos.transaction(async (tx) => {
      expect(await emitEvent(tx, { orgId: orgA, type: 'scan.completed', data: { productId: 'p', imageId: 'i', scanId: 's' } })).toBe(1);
      throw new Error('the change failed');
    })).rejects.toThrow('the change failed');
    expect((await repos.webhooks.deliveries(scans.id, { offset: 0, limit: 10 })).total).toBe(0);

    await repos.transaction((tx) => emitEvent(tx, { orgId: orgA, type: 'scan.completed', data: { productId: 'p', imageId: 'i', scanId: 's' }, baseUrl: 'https://fs.example.com/' }));
    const [delivery, ...more] = (await repos.webhooks.deliveries(scans.id, { offset: 0, limit: 10 })).rows;
    expect(more).toEqual([]);
    expect(delivery).toMatchObject({ eventType: 'scan.completed', status: 'pending', attempts: 0, messageId: `msg_${delivery!.id}` });
    expect(JSON.parse(delivery!.payload)).toMatchObject({
      type: 'scan.completed',
      data: { productId: 'p', imageId: 'i', scanId: 's', links: { scan: 'https://fs.example.com/api/v4/products/p/images/i/scans/s' } },
    });
    expect(await jobsOf(delivery!.id)).toHaveLength(1);
    for (const other of [images, off, elsewhere]) expect((await repos.webhooks.deliveries(other.id, { offset: 0, limit: 10 })).total).toBe(0);
  });

  it('retries on the schedule, then fails for good and disables the webhook; a repeated job changes nothing', async () => {
    const target = await repos.webhooks.create(hook(orgB, ['scan.failed']));
    await repos.transaction((tx) => emitEvent(tx, { orgId: orgB, type: 'scan.failed', data: { scanId: 's' } }));
    const delivery = (await repos.webhooks.deliveries(target.id, { offset: 0, limit: 1 })).rows[0]!;
    const sent: string[] = [];
    const failing = async (url: string, _secret: string, messageId: string): Promise<DeliveryAttempt> => {
      sent.push(`${url} ${messageId}`);
      return { ok: false, status: 503, durationMs: 7 };
    };
    const options = { retryScheduleMs: [60_000, 120_000], jitter: 0, send: failing };

    const before = Date.now();
    expect(await attemptDelivery(repos, delivery.id, 1, options)).toBe('retrying');
    const first = (await repos.webhooks.deliveryById(delivery.id))!;
    expect(first).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 503, lastDurationMs: 7, lastError: 'HTTP 503' });
    expect(Date.parse(first.nextAttemptTime!) - before).toBeGreaterThanOrEqual(60_000);
    const queued = (await jobsOf(delivery.id)).find((j) => JSON.parse(j.payload).attempt === 2)!;
    expect(queued.run_time).toBe(first.nextAttemptTime);

    expect(await attemptDelivery(repos, delivery.id, 1, options)).toBe('skipped'); // the same job again
    expect(await attemptDelivery(repos, delivery.id, 2, options)).toBe('retrying');
    expect(await attemptDelivery(repos, delivery.id, 3, options)).toBe('failed');
    expect(sent).toEqual(Array(3).fill(`${target.url} ${delivery.messageId}`));
    expect(await repos.webhooks.deliveryById(delivery.id)).toMatchObject({ status: 'failed', attempts: 3, nextAttemptTime: null });
    const disabled = (await repos.webhooks.get(orgB, target.id))!;
    expect(disabled).toMatchObject({ enabled: false, failureStreak: 3 });
    expect(disabled.disabledReason).toMatch(/failed all 3 attempts .*HTTP 503/);

    // a disabled webhook gets no new deliveries; a pending one ends unsent
    expect(await repos.transaction((tx) => emitEvent(tx, { orgId: orgB, type: 'scan.failed', data: {} }))).toBe(0);
    const stranded = await repos.webhooks.addDelivery({ webhookId: target.id, eventType: 'scan.failed', payload: '{}' });
    expect(await attemptDelivery(repos, stranded.id, 1, options)).toBe('failed');
    expect(await repos.webhooks.deliveryById(stranded.id)).toMatchObject({ status: 'failed', attempts: 0, lastError: expect.stringMatching(/webhook is disabled/) });
    expect(sent).toHaveLength(3);
  });

  it('a success ends the delivery and resets the failure streak', async () => {
    const target = await repos.webhooks.create(hook(orgB, ['image.created']));
    const delivery = await repos.webhooks.addDelivery({ webhookId: target.id, eventType: 'image.created', payload: '{}' });
    const answers = [500, 200];
    const send = async (): Promise<DeliveryAttempt> => {
      const status = answers.shift()!;
      return { ok: status < 300, status, durationMs: 1 };
    };
    expect(await attemptDelivery(repos, delivery.id, 1, { retryScheduleMs: [0], send })).toBe('retrying');
    expect((await repos.webhooks.getById(target.id))!.failureStreak).toBe(1);
    expect(await attemptDelivery(repos, delivery.id, 2, { retryScheduleMs: [0], send })).toBe('succeeded');
    expect(await repos.webhooks.deliveryById(delivery.id)).toMatchObject({ status: 'succeeded', attempts: 2, lastStatusCode: 200, lastError: null });
    expect(await repos.webhooks.getById(target.id)).toMatchObject({ enabled: true, failureStreak: 0 });
  });

  it('a delivery whose sending worker died on every attempt of its job ends failed, not pending for ever', async () => {
    const target = await repos.webhooks.create(hook(orgB, ['image.created']));
    const delivery = await repos.webhooks.addDelivery({ webhookId: target.id, eventType: 'image.created', payload: '{}' });
    await failAbandonedDelivery(repos)({ payload: { deliveryId: delivery.id, attempt: 1 }, attempts: 3 } as unknown as Job);
    expect(await repos.webhooks.deliveryById(delivery.id)).toMatchObject({ status: 'failed', lastError: 'the worker sending it stopped responding 3 times', nextAttemptTime: null });
  });

  it('jitter stays within ±10 % by default', () => {
    expect(jittered(1000, 0.1, () => 0)).toBe(900);
    expect(jittered(1000, 0.1, () => 1)).toBe(1100);
    expect(jittered(1000, 0, () => 0.3)).toBe(1000);
  });
});

const record = (id: string, modified: string): VulnerabilityRecord => ({
  id, aliases: [], source: 'nvd', cwes: [], references: [], modified,
  criteria: [[{ criteria: 'cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*', vulnerable: true, versionEndIncluding: '1.36.0' }]],
  cvss: { v3: { baseScore: 7.5, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', version: '3.1' } },
});

describeEachDatabase('finding.escalated from re-matching', (get) => {
  it('a new vulnerability and a new KEV entry each emit finding.escalated with the finding id', async () => {
    const { db } = get();
    const repos = reposOf(db);
    const { product, image } = await productWithImages(db);
    const latest = await image('2026-02-01T00:00:00.000Z', '1.31.1');
    const orgId = (await db.selectFrom('products').select('org_id').where('id', '=', product).executeTakeFirstOrThrow()).org_id;
    const target = await repos.webhooks.create(hook(orgId, ['finding.escalated']));
    const vulns = new VulnerabilityImporter(db);
    await vulns.putRecord(record('CVE-2098-2000', '2024-01-01T00:00:00.000Z'));
    await rematchLatestImages(repos, new VulnerabilityReader(db), { baseUrl: 'https://fs.example.com' });
    await vulns.putKev([{ cveId: 'CVE-2098-2000', dateAdded: '2026-03-01', requiredAction: 'Update BusyBox.' }]);
    await rematchLatestImages(repos, new VulnerabilityReader(db), { baseUrl: 'https://fs.example.com' });

    const finding = await db.selectFrom('findings').select('id').where('scan_id', '=', latest.scanId).executeTakeFirstOrThrow();
    const events = (await repos.webhooks.deliveries(target.id, { offset: 0, limit: 10 })).rows.map((d) => JSON.parse(d.payload)).reverse();
    expect(events.map((e) => [e.type, e.data.reason, e.data.findingId])).toEqual([
      ['finding.escalated', 'new-vulnerability', finding.id],
      ['finding.escalated', 'kev', finding.id],
    ]);
    expect(events[1].data).toMatchObject({ productId: product, imageId: latest.imageId, scanId: latest.scanId, details: { isKev: { old: false, new: true } } });
    expect(events[1].data.links.finding).toBe(`https://fs.example.com/api/v4/products/${product}/findings/${finding.id}`);
  });
});

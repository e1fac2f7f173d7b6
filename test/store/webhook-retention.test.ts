// Retention of webhook deliveries on both dialects: finished deliveries older than the retention period go, in
// batches; newer ones and pending ones (however old) stay; the scheduled sweep runs at once and stops when asked.
import pino from 'pino';
import { beforeAll, expect, it } from 'vitest';
import { pruneWebhookDeliveries, scheduleWebhookRetention } from '../../src/services/webhook-retention.js';
import type { Repositories } from '../../src/store/repositories.js';
import { describeEachDatabase } from '../support/databases.js';
import { reposOf } from '../support/repos-of.js';

const DAY = 86_400_000;

describeEachDatabase('webhook delivery retention', (get) => {
  let repos: Repositories;
  let webhookId: string;

  beforeAll(async () => {
    repos = reposOf(get().db);
    const org = (await repos.identities.createOrg('retention')).id;
    webhookId = (await repos.webhooks.create({ orgId: org, url: 'https://hooks.example.com/r', events: ['scan.completed'], description: '', secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=', authorId: null })).id;
  });

  /** A delivery whose last update was `ageDays` ago, in `status`. */
  const delivery = async (status: 'pending' | 'succeeded' | 'failed', ageDays: number): Promise<string> => {
    const d = await repos.webhooks.addDelivery({ webhookId, eventType: 'scan.completed', payload: '{}' });
    const when = new Date(Date.now() - ageDays * DAY).toISOString();
    await get().db.updateTable('webhook_deliveries').set({ status, update_time: when, create_time: when }).where('id', '=', d.id).execute();
    return d.id;
  };
  const remaining = async () => (await get().db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', webhookId).execute()).map((r) => r.id).sort();

  it('deletes finished deliveries past the period, in batches, and keeps the rest', async () => {
    const old: string[] = [];
    for (let i = 0; i < 1203; i++) old.push(await delivery(i % 2 ? 'succeeded' : 'failed', 31 + (i % 5)));
    const keep = [await delivery('succeeded', 29), await delivery('failed', 1), await delivery('pending', 400)];
    expect(await repos.webhooks.deleteFinishedBefore(new Date(Date.now() - 30 * DAY).toISOString(), 100)).toBe(100);
    expect(await pruneWebhookDeliveries(repos, 30)).toBe(1103);
    expect(await remaining()).toEqual([...keep].sort());
    expect(await pruneWebhookDeliveries(repos, 30)).toBe(0);
    // a shorter period takes the 29-day-old one too, never the pending one
    expect(await pruneWebhookDeliveries(repos, 7)).toBe(1);
    expect(await remaining()).toEqual([keep[1]!, keep[2]!].sort());
  }, 120_000);

  it('the scheduled sweep runs at start and again at each interval until stopped', async () => {
    const first = await delivery('succeeded', 60);
    const stop = scheduleWebhookRetention(repos, 30, pino({ level: 'silent' }), 50);
    try {
      await expect.poll(async () => (await remaining()).includes(first), { timeout: 5000 }).toBe(false);
      const second = await delivery('failed', 60);
      await expect.poll(async () => (await remaining()).includes(second), { timeout: 5000 }).toBe(false);
    } finally {
      stop();
    }
    const third = await delivery('failed', 60);
    await new Promise((r) => setTimeout(r, 200));
    expect(await remaining()).toContain(third);
  });
});

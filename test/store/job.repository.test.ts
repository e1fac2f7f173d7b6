import { expect, it } from 'vitest';
import { JobRepository } from '../../src/store/job.repository.js';
import { describeEachDatabase } from '../support/databases.js';

describeEachDatabase('JobRepository', (get) => {
  const repo = () => new JobRepository(get().db, get().dialect);

  it('claims a queued job once, and nothing when none is due', async () => {
    const job = await repo().enqueue({ kind: 'k1', payload: { a: 1 } });
    const claimed = await repo().claim('w1', ['k1'], 60_000);
    expect(claimed?.id).toBe(job.id);
    expect(claimed?.attempts).toBe(1);
    expect(claimed?.payload).toEqual({ a: 1 });
    expect(await repo().claim('w2', ['k1'], 60_000)).toBeUndefined();
    expect(await repo().finish(job.id, 'w1', 'done')).toBe(true);
    expect((await repo().get(job.id))?.status).toBe('done');
  });

  it('never hands one job to two concurrent claimers', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await repo().enqueue({ kind: 'k2' })).id);
    const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => repo().claim(`w${i}`, ['k2'], 60_000)));
    const got = claims.filter((c) => c !== undefined).map((c) => c!.id);
    expect(new Set(got).size).toBe(got.length);
    expect(new Set(got)).toEqual(ids);
  });

  it('re-claims a job whose lease expired (its worker died), up to max attempts', async () => {
    const job = await repo().enqueue({ kind: 'k3', maxAttempts: 2 });
    await repo().claim('dead', ['k3'], -1000);
    const second = await repo().claim('alive', ['k3'], -1000);
    expect(second?.id).toBe(job.id);
    expect(second?.attempts).toBe(2);
    // The first owner lost it: its heartbeat and finish fail.
    expect((await repo().heartbeat(job.id, 'dead', 1000)).owned).toBe(false);
    expect(await repo().finish(job.id, 'dead', 'done')).toBe(false);
    // Out of attempts with an expired lease: nobody claims it; failAbandoned ends it.
    expect(await repo().claim('third', ['k3'], 60_000)).toBeUndefined();
    const abandoned = await repo().failAbandoned();
    expect(abandoned.map((j) => j.id)).toContain(job.id);
    expect((await repo().get(job.id))?.status).toBe('failed');
  });

  it('cancels a queued job at once and flags a running one for its heartbeat', async () => {
    const queued = await repo().enqueue({ kind: 'k4', scanId: 'S-queued' });
    await repo().requestCancel('S-queued');
    expect((await repo().get(queued.id))?.status).toBe('cancelled');
    const running = await repo().enqueue({ kind: 'k4', scanId: 'S-running' });
    await repo().claim('w', ['k4'], 60_000);
    expect((await repo().heartbeat(running.id, 'w', 60_000)).cancelRequested).toBe(false);
    await repo().requestCancel('S-running');
    expect(await repo().heartbeat(running.id, 'w', 60_000)).toEqual({ owned: true, cancelRequested: true });
  });

  it('retries a failed attempt later while attempts remain', async () => {
    const job = await repo().enqueue({ kind: 'k5', maxAttempts: 2 });
    await repo().claim('w', ['k5'], 60_000);
    expect(await repo().retry(job.id, 'w', 'boom', 60_000)).toBe(true);
    expect(await repo().claim('w', ['k5'], 60_000)).toBeUndefined(); // not due yet
    const row = await repo().get(job.id);
    expect(row?.status).toBe('queued');
    expect(row?.lastError).toBe('boom');
  });
});

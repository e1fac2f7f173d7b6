// Fleet re-matching as jobs: the latest image of every product is split into jobs, two workers share them, every
// image gains its finding exactly once (one escalation each), a job whose lookups fail is retried, and the result
// is what the inline re-match gives.
import { expect, it } from 'vitest';
import type { Job } from '../../src/store/job.repository.js';
import { readFeeds } from '../../src/engine/vulns/feed-reader.js';
import { rematchJobHandler } from '../../src/jobs/rematch-job.js';
import { JobWorker } from '../../src/jobs/worker.js';
import { queueRematchJobs, REMATCH_JOB } from '../../src/services/rematch-jobs.js';
import { VulnerabilityImporter } from '../../src/store/vulns-importer.js';
import { VulnerabilityReader } from '../../src/store/vulns-reader.js';
import { describeEachDatabase } from '../support/databases.js';
import { reposOf } from '../support/repos-of.js';
import { haveShared, sharedPath } from '../support/shared.js';
import { waitFor } from '../support/server.js';
import { productWithImages } from '../support/store-fixtures.js';
import { failingSource } from '../support/vuln-source.js';

const hasData = haveShared('vulndata', 'nvd-cve2.0-CVE-2021-42386.json');

describeEachDatabase('fleet re-matching as jobs', (get) => {
  it.runIf(hasData)('spreads the latest images over the workers; each image is re-matched once', async () => {
    const { db, dialect } = get();
    const products = [];
    for (let i = 0; i < 7; i++) {
      const { product, image } = await productWithImages(db);
      await image('2026-01-01T00:00:00.000Z', '1.30.0');
      products.push({ product, latest: await image('2026-02-01T00:00:00.000Z', '1.31.1') });
    }
    await new VulnerabilityImporter(db).importItems(readFeeds([sharedPath('vulndata', 'nvd-cve2.0-CVE-2021-42386.json')]));

    const repos = reposOf(db);
    const queued = await queueRematchJobs(repos, { batchSize: 2 });
    expect(queued.images).toBeGreaterThanOrEqual(7); // other suites' products share the database
    expect(queued.jobs).toBe(Math.ceil(queued.images / 2));

    const ran: string[] = [];
    const source = new VulnerabilityReader(db);
    const handler = rematchJobHandler(repos, source);
    const workers = [1, 2].map(() => new JobWorker({
      jobs: repos.jobs, pollMs: 20, leaseMs: 5000, heartbeatMs: 100,
      handlers: { [REMATCH_JOB]: async (job: Job, signal: AbortSignal) => (ran.push(job.id), handler(job, signal)) },
    }));
    for (const w of workers) w.start();
    const jobs = await waitFor(async () => {
      const rows = await db.selectFrom('jobs').select(['id', 'status']).where('kind', '=', REMATCH_JOB).execute();
      return rows.every((r) => r.status === 'done') ? rows : undefined;
    }, 20_000, 50);
    for (const w of workers) await w.stop();
    expect(jobs).toHaveLength(queued.jobs);
    expect(ran.sort()).toEqual(jobs.map((j) => j.id).sort());

    for (const { product, latest } of products) {
      const findings = await db.selectFrom('findings').select('pname').where('scan_id', '=', latest.scanId).execute();
      expect(findings.map((f) => f.pname)).toEqual(['CVE-2021-42386']);
      const escalations = await db.selectFrom('escalations').select('reason').where('product_id', '=', product).execute();
      expect(escalations.map((e) => e.reason)).toEqual(['new-vulnerability']);
    }
    expect(dialect).toMatch(/sqlite|postgres/);
  });

  it('a job whose lookups fail throws, so the job is retried rather than done', async () => {
    const { db } = get();
    const { image } = await productWithImages(db);
    const latest = await image('2026-02-01T00:00:00.000Z', '1.31.1');
    const handler = rematchJobHandler(reposOf(db), failingSource(() => true, 'database gone'));
    const job = { id: 'j', kind: REMATCH_JOB, scanId: null, payload: { targets: [{ ...latest, productId: 'p' }] }, status: 'running', attempts: 1, maxAttempts: 5, leaseOwner: 'w', cancelRequested: false, lastError: null } as Job;
    await expect(handler(job, new AbortController().signal)).rejects.toThrow(/re-matching 1 images: .*database gone/);
  });
});

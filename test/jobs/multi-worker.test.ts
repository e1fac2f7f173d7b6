// Workers on "separate machines": three `firmscope worker` processes, each with a data folder of its own (no shared
// disk), sharing only PostgreSQL and an S3 bucket (s3rver behind a SigV4-checking front) with two API servers that
// run no scans themselves, each with a data folder of its own, behind one public URL (FIRMSCOPE_BASE_URL, as a load
// balancer would give them). 30 small images are uploaded through pre-signed PUTs to the bucket, every other one
// through the second server: its upload URL asked from one server and finalized on the other, with a token the
// other server issued. One worker is SIGKILLed
// in the middle of a scan (frozen with SIGSTOP first, so the scan cannot end between the check and the kill): its
// scan is retried by another worker and completes. Another gets SIGTERM in the middle of a scan: it finishes that
// scan, then exits 0. In the end every scan ran to completion exactly once (one attempt, two for the killed one),
// results are stored once, and every image's blob in the bucket has its recorded SHA-256.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import { startFleet, type Fleet, type FleetWorker } from '../support/fleet.js';
import { ADMIN, call, passwordToken, waitFor, type TestServer } from '../support/server.js';
import { duplicateResultProblems, imageBlobProblems, unfinishedWorkProblems } from '../support/store-invariants.js';

const SCANS = 30;
const LEASE_SECONDS = 5;

const postgres = testDialects().includes('postgres');

describe.skipIf(!postgres)('three workers without a shared disk, on PostgreSQL and S3', () => {
  let fleet: Fleet;
  let t: TestServer;
  let secondBase: string;
  let token: string;
  let productId: string;
  let workers: FleetWorker[];
  const sent = new Map<string, string>();

  beforeAll(async () => {
    fleet = await startFleet('fleet', { FIRMSCOPE_JOB_LEASE_SECONDS: String(LEASE_SECONDS), FIRMSCOPE_SHUTDOWN_GRACE_SECONDS: '60' });
    ({ first: t, secondBase, workers } = fleet);
    token = await passwordToken(t.base, ADMIN.email, ADMIN.password);
    productId = (await call(t.base, token, 'POST', '/api/v4/products', { name: 'Fleet' })).body.id.split('/')[1];
  }, 120_000);

  afterAll(async () => {
    await fleet?.close();
  });

  /** The job `worker` is running now, if any (its lease owner is `host:pid:id`). */
  async function runningJob(worker: FleetWorker): Promise<{ id: string; scan_id: string | null } | undefined> {
    return t.server.runtime.database.db.selectFrom('jobs').select(['id', 'scan_id']).where('status', '=', 'running')
      .where('lease_owner', 'like', `%:${worker.process.pid}:%`).executeTakeFirst();
  }

  /** Waits until `worker` runs a scan, then freezes it there (SIGSTOP) and returns that job. */
  async function frozenMidScan(worker: FleetWorker): Promise<{ id: string; scan_id: string | null }> {
    return waitFor(async () => {
      if (!worker.process.running) throw new Error(`${worker.process.name} exited:\n${worker.process.tail}`);
      if (!(await runningJob(worker))) return undefined;
      worker.process.child.kill('SIGSTOP');
      // a job the worker marked done just before it stopped may still be committing: let it land, then look again
      // (a second: on a loaded machine PostgreSQL took longer than 300 ms to apply a COMMIT already sent)
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const job = await runningJob(worker);
      if (!job) worker.process.child.kill('SIGCONT');
      return job;
    }, 60_000, 20);
  }

  it('runs 30 scans exactly once, retries the one whose worker was killed, and drains on SIGTERM', async () => {
    // the second server signs its own tokens with the key both are configured with
    const secondToken = await passwordToken(secondBase, ADMIN.email, ADMIN.password);
    const upload = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const bytes = gzipSync(Buffer.from(`fleet image ${i}\n`.repeat(2000 + i)));
        // odd images: upload URL from the first server, finalized on the second with the second's token
        const [asked, finalized, bearer] = i % 2 === 0 ? [t.base, t.base, token] : [t.base, secondBase, secondToken];
        const url = await call(asked, token, 'GET', `/api/v4/products/${productId}/tempFiles:generateUploadUrl`);
        expect((await fetch(url.body.uploadUrl, { method: 'PUT', body: bytes })).status).toBe(200);
        const fin = await call(finalized, bearer, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${url.body.id}&imageName=fleet-${i}`, new FormData());
        expect(fin.status).toBe(201);
        sent.set(`fleet-${i}`, createHash('sha256').update(bytes).digest('hex'));
      }
    };
    const [killed, drained, survivor] = workers as [FleetWorker, FleetWorker, FleetWorker];
    // Each worker to be caught mid-scan first works alone (the others paused while idle), so it is busy from one
    // scan to the next and is caught running whatever the speed of a scan; the survivor then does the rest.
    drained.process.child.kill('SIGSTOP');
    survivor.process.child.kill('SIGSTOP');
    await upload(0, SCANS / 2);
    const killedJob = await frozenMidScan(killed);
    killed.process.child.kill('SIGKILL');
    await killed.process.exited;

    drained.process.child.kill('SIGCONT');
    await upload(SCANS / 2, SCANS);
    const drainedJob = await frozenMidScan(drained);
    drained.process.child.kill('SIGTERM');
    drained.process.child.kill('SIGCONT');
    expect(await drained.process.exited, drained.process.tail).toBe(0);
    survivor.process.child.kill('SIGCONT');

    const db = t.server.runtime.database.db;
    // a worker records the scan's end, then finishes its job: both are waited for
    await waitFor(async () => {
      const open = await db.selectFrom('scans').select('id').where('state', 'not in', ['done', 'failed', 'cancelled']).execute();
      const running = await db.selectFrom('jobs').select('id').where('status', 'not in', ['done', 'failed', 'cancelled']).execute();
      return (open.length === 0 && running.length === 0) || undefined;
    }, 180_000, 250);

    const scans = await db.selectFrom('scans').select(['id', 'state']).execute();
    expect(scans).toHaveLength(SCANS);
    expect(scans.filter((s) => s.state !== 'done')).toEqual([]);
    const jobs = await db.selectFrom('jobs').select(['id', 'scan_id', 'status', 'attempts']).execute();
    expect(jobs).toHaveLength(SCANS);
    const retried = jobs.filter((j) => Number(j.attempts) !== 1);
    expect(retried.map((j) => [j.id, Number(j.attempts)])).toEqual([[killedJob.id, 2]]);
    expect(jobs.find((j) => j.id === drainedJob.id)).toMatchObject({ status: 'done' });
    // every scan went to running once per attempt and reached done once
    const runs = await db.selectFrom('scan_states').select(['scan_id', 'type']).where('type', 'in', ['running', 'done']).execute();
    for (const scan of scans) {
      const mine = runs.filter((r) => r.scan_id === scan.id);
      expect(mine.filter((r) => r.type === 'done')).toHaveLength(1);
      // the killed worker may have died between claiming the job and recording the scan as running
      const running = mine.filter((r) => r.type === 'running').length;
      if (scan.id === killedJob.scan_id) expect(running === 1 || running === 2, `running states of the retried scan: ${running}`).toBe(true);
      else expect(running).toBe(1);
    }
    expect(await unfinishedWorkProblems(db)).toEqual([]);
    expect(await duplicateResultProblems(db)).toEqual([]);
    expect(await imageBlobProblems(db, t.server.runtime.blobs, sent)).toEqual([]);
    // the survivor's work folder holds nothing once its scans are done (downloads live only while a scan runs)
    expect(readdirSync(join(survivor.dataDir, 'work'))).toEqual([]);

    const workerMetrics = await (await fetch(`http://127.0.0.1:${survivor.port}/metrics`)).text();
    expect(metric(workerMetrics, 'firmscope_scan_duration_seconds_count', { role: 'worker', outcome: 'done' })).toBeGreaterThan(0);
    expect(metric(workerMetrics, 'firmscope_scans', { role: 'worker', state: 'done' })).toBe(SCANS);
    expect(metric(workerMetrics, 'firmscope_jobs', { role: 'worker', kind: 'scan', status: 'done' })).toBe(SCANS);
    // each API server finalized its half, and each answers for the whole fleet
    for (const base of [t.base, secondBase]) {
      const apiMetrics = await (await fetch(`${base}/metrics`)).text();
      expect(metric(apiMetrics, 'firmscope_http_request_duration_seconds_count', {
        role: 'api', method: 'POST', route: '/api/v4/products/:productId/images::upload', status: '201',
      })).toBe(SCANS / 2);
      expect((await fetch(`${base}/health`)).status).toBe(200);
      const images = await call(base, base === t.base ? token : await passwordToken(secondBase, ADMIN.email, ADMIN.password), 'GET', `/api/v4/products/${productId}/images`);
      expect(images.status).toBe(200);
      expect(images.body.images).toHaveLength(SCANS);
      const sbom = await call(base, token, 'GET', `/api/v4/products/${productId}/images/${images.body.images[0].id.split('/').pop()}/sbomReport:cycloneDX`);
      expect(sbom.status).toBe(200);
      expect(sbom.body.bomFormat).toBe('CycloneDX');
    }
  }, 300_000);
});

/** The value of a Prometheus text-format sample with exactly these labels (in any order). */
function metric(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`).sort().join(',');
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)\{(.*)\} (\S+)$/.exec(line);
    if (match?.[1] === name && match[2]!.split(/,(?=[a-z_]+=")/).sort().join(',') === wanted) return Number(match[3]);
  }
  return undefined;
}

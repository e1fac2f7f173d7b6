// Fault injection on the whole system: `firmscope serve` (with one in-process scan worker), a separate
// `firmscope worker` and `firmscope vulndb import` (which re-matches the latest images) run as child processes on
// a temporary data folder, and one of them is killed (SIGKILL) at a random moment of each round: during an upload
// (direct, or signed URL + finalize), during a scan (the process holding the scan's job), or during an import and
// its re-match. Killed processes are restarted. At the end, with every process back and a last import run to
// completion, the store must hold:
//   - every image whose upload answered 201, and every image's blob with the SHA-256 recorded for it (the one of
//     the bytes sent);
//   - every scan and scan job final (done, failed or cancelled) within a bounded wait, leases being short;
//   - results stored once per scan (no two findings with one fingerprint, no repeated component or crypto asset);
//   - a database that passes its integrity check (SQLite) and has no orphan rows (PostgreSQL and SQLite);
//   - no pending re-match request, and the latest images' findings up to date with the vulnerability data.
// Seed: fixed by default; FIRMSCOPE_FAULT_SEED=random explores, FIRMSCOPE_FAULT_SEED=<seed> replays (the seed and
// the round log are in every failure). FIRMSCOPE_FAULT_ROUNDS sets the number of rounds (default 5).
// One test file per database (crash-recovery.sqlite.test.ts, crash-recovery.postgres.test.ts) runs this suite, so
// each file stays well within the time of one test file.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Dialect, type OpenedDatabase } from '../../src/store/database.js';
import type { Database } from '../../src/store/schema.js';
import { FilesystemBlobStore } from '../../src/store/filesystem-blob-store.js';
import { rematchRequestedAt } from '../../src/store/vuln-rematch-request.js';
import { reposOf } from '../support/repos-of.js';
import { rematchLatestImages } from '../../src/services/vuln-rematch.js';
import { VulnerabilityImporter } from '../../src/store/vulns-importer.js';
import { VulnerabilityReader } from '../../src/store/vulns-reader.js';
import { childEnv, FirmscopeProcess } from '../support/cli-process.js';
import { freshPostgresUrl } from '../support/databases.js';
import { seededRandom, seedFrom, type SeededRandom } from '../support/seeded-random.js';
import { ADMIN, call, freePort, passwordToken, waitFor } from '../support/server.js';
import { corpus, haveShared, sharedPath } from '../support/shared.js';
import {
  databaseIntegrityProblems, duplicateResultProblems, finalizeProblems, imageBlobProblems, unfinishedWorkProblems,
} from '../support/store-invariants.js';

const SEED = seedFrom('FIRMSCOPE_FAULT_SEED', 20261126);
const ROUNDS = Number(process.env.FIRMSCOPE_FAULT_ROUNDS ?? 5);
const LEASE_SECONDS = 3;
/** Small corpus images (a BusyBox the vulnerability sample matches, a Dropbear archive, key material). */
const IMAGES = ['busybox-mipsel', 'dropbearStaticMipsel.tar.bz2', 'ssl.key', 'pkcs12.p12'];
const VULN_FILES = ['nvd-cve2.0-CVE-2021-42386.json', 'nvd-cve2.0-CVE-2012-0920.json', 'cisa-kev-sample-catalog.json'];
const hasData = IMAGES.every((name) => haveShared('corpus', name)) && VULN_FILES.every((name) => haveShared('vulndata', name));
const REPLAY = `seed ${SEED}, replay with FIRMSCOPE_FAULT_SEED=${SEED}`;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The service's processes on one data folder and database; killed ones are restarted by ensureUp(). */
class System {
  server?: FirmscopeProcess;
  worker?: FirmscopeProcess;

  constructor(readonly base: string, readonly env: NodeJS.ProcessEnv) {}

  async ensureUp(): Promise<void> {
    if (!this.server?.running) {
      const server = new FirmscopeProcess('server', ['serve'], this.env);
      this.server = server;
      await waitFor(async () => {
        if (!server.running) throw new Error(`the server exited while starting:\n${server.tail}`);
        const ok = await fetch(`${this.base}/healthz`).then((r) => r.ok, () => false);
        return ok ? true : undefined;
      }, 60_000, 100);
    }
    if (!this.worker?.running) this.worker = new FirmscopeProcess('worker', ['worker', '--concurrency', '1'], this.env);
  }

  /** The process whose pid is in a job's lease owner (`host:pid:id`). */
  byPid(pid: number): FirmscopeProcess | undefined {
    return [this.server, this.worker].find((p) => p?.pid === pid);
  }

  async stop(signal: NodeJS.Signals): Promise<void> {
    await Promise.all([this.server?.stop(signal), this.worker?.stop(signal)]);
  }
}

interface Upload {
  name: string;
  sha256: string;
  /** The image id when the upload answered 201. */
  imageId?: string;
  outcome: string;
}

/** Uploads `bytes` directly, or by signed URL then finalize; `onFinalize` is called as the request making the image is sent. */
async function upload(
  base: string, token: string, productId: string, name: string, bytes: Buffer, signed: boolean, onFinalize = () => {},
): Promise<{ status: number; body: any }> {
  if (!signed) {
    onFinalize();
    const form = new FormData();
    form.set('imageName', name);
    form.set('file', new Blob([bytes]), name);
    return call(base, token, 'POST', `/api/v4/products/${productId}/images:upload`, form);
  }
  const slot = await call(base, token, 'GET', `/api/v4/products/${productId}/tempFiles:generateUploadUrl`);
  if (slot.status !== 200) return slot;
  const put = await fetch(slot.body.uploadUrl, { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
  if (put.status !== 200) return { status: put.status, body: await put.text() };
  onFinalize();
  return call(base, token, 'POST', `/api/v4/products/${productId}/images:upload?tempFileId=${slot.body.id}&imageName=${encodeURIComponent(name)}`);
}

/** The rounds of one run: each starts an operation and kills a process at a random moment of it, and logs what happened. */
class FaultRun {
  readonly images = IMAGES.map((name) => readFileSync(corpus(name)));
  readonly uploads: Upload[] = [];
  readonly log: string[] = [];
  kills = 0;
  private importIndex = 0;

  constructor(
    private readonly sys: System, private readonly db: Kysely<Database>, private readonly rng: SeededRandom,
    private readonly token: string, private readonly products: string[], private readonly imports: FirmscopeProcess[],
  ) {}

  /** Each product gets an image first (no kill), so that the re-match of an import has latest images to work on. */
  async warmUp(): Promise<void> {
    for (const [index, productId] of this.products.entries()) {
      const name = `warm-up-${IMAGES[index]}`;
      const response = await upload(this.sys.base, this.token, productId, name, this.images[index]!, false);
      if (response.status !== 201) throw new Error(`warm-up upload: ${response.status} ${JSON.stringify(response.body)}`);
      this.uploads.push({ name, sha256: sha256(this.images[index]!), imageId: response.body.id, outcome: 'direct upload 201' });
    }
  }

  /** Starts an upload of a corpus image under a fresh name; resolves when it answered or was cut off. */
  private startUpload(label: string, signed: boolean, onFinalize?: () => void): Promise<Upload> {
    const index = this.rng.below(this.images.length);
    const bytes = this.images[index]!;
    const entry: Upload = { name: `${label}-${IMAGES[index]}`, sha256: sha256(bytes), outcome: 'pending' };
    this.uploads.push(entry);
    const how = signed ? 'signed' : 'direct';
    return upload(this.sys.base, this.token, this.rng.pick(this.products), entry.name, bytes, signed, onFinalize).then(
      (r) => {
        entry.outcome = `${how} upload ${r.status}`;
        if (r.status === 201) entry.imageId = r.body.id;
        return entry;
      },
      (error: unknown) => {
        entry.outcome = `${how} upload cut off (${(error as Error).message})`;
        return entry;
      },
    );
  }

  private async kill(victim: FirmscopeProcess | undefined, round: number, what: string): Promise<void> {
    if (!victim?.running) {
      this.log.push(`round ${round}: ${what}: ${victim?.name ?? 'process'} had already exited`);
      return;
    }
    await victim.stop('SIGKILL');
    this.kills += 1;
    this.log.push(`round ${round}: ${what}: killed ${victim.name}`);
  }

  /**
   * Uploads of these sizes take tens of milliseconds: most kills land inside one, some just after; a signed upload
   * is often killed within its finalize request (temp file → image → scan).
   */
  async uploadRound(round: number): Promise<void> {
    const { rng, sys } = this;
    const signed = rng.next() < 0.5;
    const atFinalize = signed && rng.next() < 0.6;
    const delay = atFinalize ? rng.below(25) : rng.next() < 0.7 ? rng.below(60) : rng.below(1500);
    const victim = atFinalize || rng.next() < 0.75 ? sys.server : sys.worker;
    let finalizing = () => {};
    const finalizeSent = new Promise<void>((resolve) => {
      finalizing = resolve;
    });
    const pending = this.startUpload(`r${round}`, signed, finalizing);
    if (atFinalize) await Promise.race([finalizeSent, pending]);
    await sleep(delay);
    await this.kill(victim, round, `upload, ${delay} ms after ${atFinalize ? 'its finalize request' : 'its start'}`);
    const done = await pending;
    this.log.push(`round ${round}: ${done.name}: ${done.outcome}`);
  }

  /** A scan in progress: kill the process that holds its job, sometimes both service processes at once. */
  async scanRound(round: number): Promise<void> {
    const { rng, sys, db } = this;
    const busy = await db.selectFrom('jobs').select('id').where('status', 'in', ['queued', 'running']).executeTakeFirst();
    if (!busy) this.log.push(`round ${round}: ${(await this.startUpload(`r${round}`, rng.next() < 0.5)).outcome} to have a scan to interrupt`);
    const owner = await waitFor(async () => {
      const job = await db.selectFrom('jobs').select('lease_owner').where('status', '=', 'running').executeTakeFirst();
      return job?.lease_owner ?? undefined;
    }, 30_000, 50).catch(() => undefined);
    const delay = rng.below(2000);
    await sleep(delay);
    // The lease owner is `host:pid:id`.
    const holder = owner ? sys.byPid(Number(owner.split(':').at(-2))) : undefined;
    await this.kill(holder, round, `scan job held by ${owner ?? 'nobody'}, after ${delay} ms`);
    if (rng.next() < 0.3) await this.kill(holder === sys.server ? sys.worker : sys.server, round, 'and the other service process');
  }

  /**
   * An import commits its records with a re-match request, then re-matches: kill it (or a service process) at a
   * random moment, or just after the request changed (the re-match is running).
   */
  async importRound(round: number): Promise<void> {
    const { rng, sys, db } = this;
    const file = VULN_FILES[this.importIndex++ % VULN_FILES.length]!;
    const before = await rematchRequestedAt(db);
    const importer = new FirmscopeProcess('vulndb import', ['vulndb', 'import', sharedPath('vulndata', file)], sys.env);
    this.imports.push(importer);
    const victim = rng.pick([importer, importer, sys.server, sys.worker]);
    const duringRematch = rng.next() < 0.6;
    const delay = duringRematch ? rng.below(400) : rng.below(2500);
    if (duringRematch) {
      await waitFor(async () => (!importer.running || (await rematchRequestedAt(db)) !== before ? true : undefined), 30_000, 10).catch(() => undefined);
    }
    await sleep(delay);
    await this.kill(victim, round, `import of ${file}, ${delay} ms after ${duringRematch ? 'its re-match request' : 'its start'}`);
    const code = await importer.exited;
    this.log.push(`round ${round}: import of ${file} exited with ${code ?? importer.child.signalCode}`);
  }
}

export function describeCrashRecovery(dialect: Dialect): void {
  describe.runIf(hasData)(`crash recovery of server, worker and vulnerability import [${dialect}] (${REPLAY})`, () => {
    let dataDir = '';
    let pg: Awaited<ReturnType<typeof freshPostgresUrl>> | undefined;
    let system: System | undefined;
    let store: OpenedDatabase | undefined;
    const imports: FirmscopeProcess[] = [];

    afterAll(async () => {
      await Promise.all(imports.map((p) => p.stop()));
      await system?.stop('SIGKILL');
      await store?.close();
      await pg?.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it(`keeps images, finishes scans and stays consistent when processes are killed (${ROUNDS} rounds)`, async () => {
      const rng: SeededRandom = seededRandom(SEED);
      const started = Date.now();
      const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
      dataDir = mkdtempSync(join(tmpdir(), 'firmscope-faults-'));
      pg = dialect === 'postgres' ? await freshPostgresUrl() : undefined;
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const env = childEnv({
        PORT: String(port), HOST: '127.0.0.1', FIRMSCOPE_BASE_URL: base, FIRMSCOPE_DATA_DIR: dataDir, DATABASE_URL: pg?.url,
        FIRMSCOPE_ADMIN_EMAIL: ADMIN.email, FIRMSCOPE_ADMIN_PASSWORD: ADMIN.password, FIRMSCOPE_WORKERS: '1',
        FIRMSCOPE_JOB_LEASE_SECONDS: String(LEASE_SECONDS), FIRMSCOPE_JOB_POLL_MS: '100', LOG_LEVEL: 'warn',
      });
      const sys = new System(base, env);
      system = sys;
      await sys.ensureUp();
      store = await openDatabase({ url: pg?.url, dataDir });
      const db = store.db;
      const token = await passwordToken(base, ADMIN.email, ADMIN.password);
      const products: string[] = [];
      for (const name of ['router', 'camera']) {
        const created = await call(base, token, 'POST', '/api/v4/products', { name });
        expect(created.status).toBe(201);
        products.push(String(created.body.id).split('/').pop()!);
      }
      const run = new FaultRun(sys, db, rng, token, products, imports);
      const { log, uploads } = run;
      await run.warmUp();
      for (let round = 0; round < ROUNDS; round++) {
        const action = rng.pick(['upload', 'upload', 'scan', 'import'] as const);
        if (action === 'upload') await run.uploadRound(round);
        else if (action === 'scan') await run.scanRound(round);
        else await run.importRound(round);
        await sys.ensureUp();
      }

      // Recovery: every process back, a full import and re-match run to completion, then every scan settles.
      await sys.ensureUp();
      log.push(`rounds over at ${elapsed()}`);
      const last = new FirmscopeProcess('vulndb import', ['vulndb', 'import', ...VULN_FILES.map((f) => sharedPath('vulndata', f))], sys.env);
      imports.push(last);
      const lastCode = await last.exited;
      const context = `${REPLAY}\n${log.join('\n')}`;
      expect(lastCode, `the last import failed:\n${last.tail}\n${context}`).toBe(0);
      expect(last.tail, context).toMatch(/re-match: /);
      const settled = await waitFor(async () => ((await unfinishedWorkProblems(db)).length === 0 ? true : undefined), 120_000, 250).catch(() => false);
      log.push(`import done and work settled at ${elapsed()}`);
      await sys.stop('SIGTERM');

      const uploaded = await db.selectFrom('images').select(['id']).execute();
      const scans = await db.selectFrom('scans').select(['image_id', 'state', 'error']).execute();
      const lost = uploads.filter((u) => u.imageId && !uploaded.some((i) => i.id === u.imageId)).map((u) => `image ${u.imageId} (${u.name}) answered 201 but is gone`);
      const problems = [
        ...(settled ? [] : ['scans or jobs did not settle within 120 s:']),
        ...(await unfinishedWorkProblems(db)),
        ...lost,
        // Every upload here asks for a scan (createScan defaults to true).
        ...(await finalizeProblems(db, true)),
        ...(await imageBlobProblems(db, new FilesystemBlobStore(join(dataDir, 'blobs')), new Map(uploads.map((u) => [u.name, u.sha256])))),
        ...(await duplicateResultProblems(db)),
        ...(await databaseIntegrityProblems(db, dialect)),
        ...((await rematchRequestedAt(db)) ? ['a re-match is still pending after an import that finished'] : []),
      ];
      // The findings of the latest images are what matching gives now: no re-match was lost to a kill. (Run last:
      // it writes what it finds.)
      const catchUp = await rematchLatestImages(reposOf(db), new VulnerabilityReader(db));
      if (catchUp.newFindings + catchUp.updatedFindings + catchUp.withdrawnFindings > 0) {
        problems.push(`the latest images' findings are behind the vulnerability data: a fresh re-match found ${catchUp.newFindings} new, ${catchUp.updatedFindings} updated, ${catchUp.withdrawnFindings} withdrawn`);
      }
      log.push(`end: ${uploaded.length} images, scans ${JSON.stringify(Object.fromEntries(['done', 'failed', 'cancelled'].map((s) => [s, scans.filter((x) => x.state === s).length])))}, ${run.kills} kills`);
      for (const scan of scans.filter((x) => x.state === 'failed')) log.push(`failed scan of image ${scan.image_id}: ${scan.error}`);
      console.info(`fault injection [${dialect}] ${REPLAY}\n  ${log.join('\n  ')}`);
      const summary = `${REPLAY}\n${log.join('\n')}`;
      expect(problems, summary).toEqual([]);
      // The run exercised what it claims to: processes were killed and scans completed.
      expect(run.kills, summary).toBeGreaterThan(0);
      expect(scans.some((s) => s.state === 'done'), summary).toBe(true);
    }, 240_000);
  });
}

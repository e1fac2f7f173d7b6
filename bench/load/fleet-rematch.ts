// Fleet re-matching after a feed update, on PostgreSQL: 2,000 products whose latest image holds 50 components
// each (100,000 components), against generated NVD-shaped records (bench/vulns/generate.ts). First the whole fleet
// is matched once (every finding new: the first import). Then two feed updates of 1,000 new records each, each
// followed by the re-match of all 2,000 images: (1) inline in this process, as `vulndb import` does by default,
// and (2) as jobs (`vulndb import --on-workers`: 25 images a job) run by N `firmscope worker` processes, timed from
// the queueing to the last job done.
// Run: FIRMSCOPE_BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/firmscope_test npx tsx bench/load/fleet-rematch.ts
//      [--products 2000] [--components 50] [--records 100000] [--workers 2] [--with-kernel]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { Component } from '../../src/engine/types.js';
import { nvdCveToRecord } from '../../src/engine/vulns/nvd-api2.importer.js';
import { newId } from '../../src/ids.js';
import { queueRematchJobs, REMATCH_JOB } from '../../src/services/rematch-jobs.js';
import { rematchLatestImages } from '../../src/services/vuln-rematch.js';
import { openDatabase } from '../../src/store/database.js';
import { createRepositories } from '../../src/store/repositories.js';
import { VulnerabilityReader } from '../../src/store/vulns-reader.js';
import { bulkLoad } from '../vulns/bulk-load.js';
import { generateCve, PRODUCTS, productName, rng } from '../vulns/generate.js';

const { values } = parseArgs({ options: {
  products: { type: 'string', default: '2000' }, components: { type: 'string', default: '50' },
  records: { type: 'string', default: '100000' }, workers: { type: 'string', default: '2' }, 'with-kernel': { type: 'boolean', default: false },
} });
const products = Number(values.products);
const perImage = Number(values.components);
const recordCount = Number(values.records);
const workerCount = Number(values.workers);
const base = process.env.FIRMSCOPE_BENCH_DATABASE_URL ?? process.env.FIRMSCOPE_TEST_DATABASE_URL;
if (!base) throw new Error('set FIRMSCOPE_BENCH_DATABASE_URL (or FIRMSCOPE_TEST_DATABASE_URL) to a PostgreSQL database');
/** Records in each feed update. */
const DELTA = 1000;
const seconds = (t0: number) => ((performance.now() - t0) / 1000).toFixed(1);
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

const pg = (await import('pg')).default;
const schema = `bench_rematch_${Date.now().toString(36)}`;
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`create schema ${schema}`);
const url = new URL(base);
url.searchParams.set('options', `-c search_path=${schema}`);
const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-rematch-bench-'));
const opened = await openDatabase({ url: url.toString(), dataDir });
const { db } = opened;
const repos = createRepositories(db, 'postgres');
const children: ChildProcess[] = [];

function inventory(random: () => number): Component[] {
  // product 0 is the catalogue's kernel-like product (5% of all criteria, thousands of matches per image): left
  // out unless asked for, so that the bench measures a fleet's re-match rather than writing millions of findings
  const seen = new Set<number>(values['with-kernel'] ? [0] : []);
  while (seen.size < perImage) seen.add(1 + Math.floor(random() * (PRODUCTS - 1)));
  return [...seen].map((i) => {
    const { vendor, product } = productName(i);
    const version = `${Math.floor(random() * 5)}.${Math.floor(random() * 20)}.${Math.floor(random() * 30)}`;
    return { ref: `${product}@${version}`, name: product, version, type: 'library', confidence: 1, cpe: `cpe:2.3:a:${vendor}:${product}:${version}:*:*:*:*:*:*:*`, paths: [`lib/${product}.so`], evidence: [], foundBy: ['bench'] };
  });
}

try {
  console.log(`fleet re-matching bench: ${products} products × 1 latest image × ${perImage} components${values['with-kernel'] ? ' (one kernel-like)' : ''}, ${recordCount} records, ${workerCount} workers; ${cpus().length} cores, load average ${load()}`);
  let t0 = performance.now();
  const random = rng(2);
  const records = Array.from({ length: recordCount }, (_, n) => nvdCveToRecord(generateCve(1_000_000 + n, random)));
  await bulkLoad(db, records);
  for (const table of ['vuln_records', 'vuln_criteria']) await sql`vacuum analyze ${sql.table(table)}`.execute(db);
  console.log(`loaded ${recordCount} records in ${seconds(t0)} s`);

  t0 = performance.now();
  const org = newId();
  const now = new Date().toISOString();
  await db.insertInto('organisations').values({ id: org, name: 'bench', create_time: now }).execute();
  const inventories = rng(3);
  for (let p = 0; p < products; p++) {
    const productId = newId();
    const imageId = newId();
    const scanId = newId();
    await db.insertInto('products').values({ id: productId, org_id: org, name: `p-${p}`, description: null, author_id: 'bench', is_archived: 0, create_time: now, update_time: now }).execute();
    await db.insertInto('images').values({
      id: imageId, product_id: productId, org_id: org, name: 'fw', version: '1.0', file_name: 'fw.bin', blob_key: 'k', size: 1,
      sha256: 'a', sha1: 'b', md5: 'c', detected_type: null, author_id: 'bench', is_archived: 0, create_time: now, update_time: now,
    }).execute();
    await db.insertInto('scans').values({
      id: scanId, image_id: imageId, product_id: productId, org_id: org, author_id: 'bench', state: 'done', state_id: newId(), state_time: now,
      error: null, progress_phase: null, progress_percent: null, engine_version: 'bench', result_blob_key: null, create_time: now,
    }).execute();
    await repos.results.store({ scanId, imageId, productId }, { components: inventory(inventories), findings: [], cryptoAssets: [], binaries: [] });
  }
  await sql`vacuum analyze`.execute(db);
  console.log(`stored ${products} images with ${products * perImage} components in ${seconds(t0)} s`);

  // 0. the first match of the fleet: every finding is new
  t0 = performance.now();
  const first = await rematchLatestImages(repos, new VulnerabilityReader(db));
  console.log(`first match: ${first.images} images in ${seconds(t0)} s: ${first.newFindings} new findings, ${first.problems.length} problems (load average ${load()})`);
  await sql`vacuum analyze`.execute(db);
  let nextId = 1_000_000 + recordCount;
  const feedUpdate = async () => {
    await bulkLoad(db, Array.from({ length: DELTA }, () => nvdCveToRecord(generateCve(nextId++, random))));
  };

  // 1. after a feed update, inline in this process
  await feedUpdate();
  t0 = performance.now();
  const inline = await rematchLatestImages(repos, new VulnerabilityReader(db));
  console.log(`feed update of ${DELTA} records, re-matched inline: ${inline.images} images in ${seconds(t0)} s: ${inline.newFindings} new findings, ${inline.escalations} escalations, ${inline.problems.length} problems (load average ${load()})`);

  // 2. after another feed update, as jobs over N worker processes (started first: the time is the work's, not their start-up)
  await feedUpdate();
  const before = Number((await db.selectFrom('findings').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
  for (let i = 0; i < workerCount; i++) {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../../src/cli/main.ts'), 'worker', '--concurrency', '1'], {
      env: { ...process.env, DATABASE_URL: url.toString(), FIRMSCOPE_DATA_DIR: mkdtempSync(join(tmpdir(), `firmscope-rematch-worker-${i}-`)), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.push(child);
  }
  await new Promise((resolve) => setTimeout(resolve, 5000));
  t0 = performance.now();
  const queued = await queueRematchJobs(repos);
  for (;;) {
    const left = await db.selectFrom('jobs').select(sql<number>`count(*)`.as('n')).where('kind', '=', REMATCH_JOB).where('status', 'in', ['queued', 'running']).executeTakeFirstOrThrow();
    if (Number(left.n) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const took = seconds(t0);
  const jobs = await db.selectFrom('jobs').select('status').where('kind', '=', REMATCH_JOB).execute();
  const findings = await db.selectFrom('findings').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  console.log(`feed update of ${DELTA} records, re-matched as jobs: ${queued.images} images in ${queued.jobs} jobs by ${workerCount} workers in ${took} s; ${Number(findings.n) - before} new findings; `
    + `${jobs.filter((j) => j.status === 'done').length} of ${jobs.length} jobs done (load average ${load()})`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await opened.close();
  await admin.query(`drop schema ${schema} cascade`);
  await admin.end();
  rmSync(dataDir, { recursive: true, force: true });
}

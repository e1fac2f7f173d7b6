// The findings grid at fleet size, through the real API on PostgreSQL: 1,000,000 findings across 2,000 images
// (500 per image, about 2 KB of finding document each), in products of 100,000 (200 images), 6,000 (12 images),
// 500 (1 image) findings and 35 others; a quarter of the images also have an older completed scan. Then, 40 timed
// requests each (after 5 warm-ups): the first page of each size of product, page 50, the imageId filter, the
// severity, issue-status and KEV filters, a non-default sort, and the streamed CSV export of the 100,000 findings
// (time, rows, and this process's RSS, which holds the server, sampled every 20 ms). The query plans of the first
// page of the largest product are written beside the figures.
// Run: FIRMSCOPE_BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/firmscope_test npx tsx bench/load/grid-fleet.ts
// (a fresh schema is created and dropped; FIRMSCOPE_TEST_DATABASE_URL is used when the bench variable is unset).
// FIRMSCOPE_BENCH_SCHEMA=name keeps the schema under that name and reuses its data on the next run (generation
// takes minutes), for trying indexes and plans; drop it by hand when done.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { queryFindingGrid } from '../../src/store/finding-grid.js';
import type { Database } from '../../src/store/schema.js';
import { percentiles, timed } from './stats.js';

const base = process.env.FIRMSCOPE_BENCH_DATABASE_URL ?? process.env.FIRMSCOPE_TEST_DATABASE_URL;
if (!base) throw new Error('set FIRMSCOPE_BENCH_DATABASE_URL (or FIRMSCOPE_TEST_DATABASE_URL) to a PostgreSQL database');
const RUNS = Number(process.env.FIRMSCOPE_BENCH_RUNS ?? 40);
const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };

const kept = process.env.FIRMSCOPE_BENCH_SCHEMA;
if (kept !== undefined && !/^[a-z_][a-z0-9_]*$/.test(kept)) throw new Error('FIRMSCOPE_BENCH_SCHEMA must be a lower-case SQL identifier');
const schema = kept ?? `bench_grid_${Date.now().toString(36)}`;
const admin = new pg.Client({ connectionString: base });
await admin.connect();
const reused = kept !== undefined && (await admin.query('select 1 from pg_namespace where nspname = $1', [kept])).rowCount === 1;
if (!reused) await admin.query(`create schema ${schema}`);
const url = new URL(base);
url.searchParams.set('options', `-c search_path=${schema}`);
const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-grid-bench-'));
const server = await startServer(loadConfig({
  PORT: '0', HOST: '127.0.0.1', DATABASE_URL: url.toString(), FIRMSCOPE_DATA_DIR: dataDir, FIRMSCOPE_WORKERS: '0', LOG_LEVEL: 'silent',
  FIRMSCOPE_ADMIN_EMAIL: ADMIN.email, FIRMSCOPE_ADMIN_PASSWORD: ADMIN.password,
}));
const db = new pg.Client({ connectionString: url.toString() });
await db.connect();
const out: string[] = [];
const say = (line: string) => {
  out.push(line);
  console.log(line);
};

try {
  if (reused) {
    say(`reusing the data of schema ${schema}`);
  } else {
    const started = Date.now();
    await generate(db);
    say(`generated 1,000,000 findings across 2,000 images in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  const token = await passwordToken(server.url);
  const products = (await db.query<{ id: string; name: string }>('select id, name from products order by name')).rows;
  const product = (name: string) => products.find((p) => p.name === name)!.id;
  const large = product('p-large');
  const anImage = (await db.query<{ id: string }>('select id from images where product_id = $1 limit 1', [large])).rows[0]!.id;
  const grid = (filters: unknown[], extra: Record<string, unknown> = {}) => async () => {
    const response = await fetch(`${server.url}/api/v4/grids/findings:gridList`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ filters, ...extra }),
    });
    const body = (await response.json()) as { total: number; rows: unknown[] };
    if (response.status !== 200) throw new Error(`grid answered ${response.status}: ${JSON.stringify(body)}`);
    return body;
  };
  const byProduct = (id: string) => ({ field: 'productId', value: id });
  const cases: Array<[string, () => Promise<{ total: number }>]> = [
    ['first page, product of 500 findings', grid([byProduct(product('p-small'))])],
    ['first page, product of 6,000 findings', grid([byProduct(product('p-medium'))])],
    ['first page, product of 100,000 findings', grid([byProduct(large)])],
    ['page 50, product of 100,000', grid([byProduct(large)], { page: { num: 50, size: 10 } })],
    ['imageId filter (500 findings)', grid([{ field: 'imageId', value: anImage }])],
    ['product of 100,000, severity in (critical, high)', grid([byProduct(large), { field: 'severity', value: ['critical', 'high'], comparator: 'in' }])],
    ['product of 100,000, issueStatus = new', grid([byProduct(large), { field: 'issueStatus', value: 'new' }])],
    ['product of 100,000, isKev = true', grid([byProduct(large), { field: 'isKev', value: 'true' }])],
    ['product of 100,000, sorted by pname', grid([byProduct(large)], { sortBy: { field: 'pname', direction: 'ascend' } })],
  ];
  say('');
  say('| request | total rows | p50 ms | p95 ms | p99 ms |');
  say('| --- | ---: | ---: | ---: | ---: |');
  for (const [label, run] of cases) {
    let total = 0;
    for (let i = 0; i < 5; i++) total = (await run()).total;
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) times.push(await timed(run));
    const p = percentiles(times);
    say(`| ${label} | ${total.toLocaleString('en')} | ${p.p50.toFixed(1)} | ${p.p95.toFixed(1)} | ${p.p99.toFixed(1)} |`);
  }

  // The CSV export of the 100,000-finding product, twice, read as a stream without keeping it
  say('');
  for (let round = 1; round <= 2; round++) {
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const t0 = performance.now();
    const response = await fetch(`${server.url}/api/v4/grids/findings:gridList?contentType=csv`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ filters: [byProduct(large)] }),
    });
    let lines = 0;
    let bytes = 0;
    for await (const chunk of response.body!) {
      bytes += chunk.length;
      for (const byte of chunk as Uint8Array) if (byte === 10) lines++;
    }
    const ms = performance.now() - t0;
    clearInterval(sampler);
    const mib = (n: number) => (n / 1024 ** 2).toFixed(0);
    say(`CSV export ${round}: ${(lines - 1).toLocaleString('en')} rows, ${mib(bytes)} MiB in ${(ms / 1000).toFixed(2)} s; RSS ${mib(before)} → peak ${mib(peak)} MiB (server and client in this process)`);
  }

  const plans = await firstPagePlans(url.toString(), large);
  mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
  const stamp = new Date().toISOString().slice(0, 10);
  writeFileSync(join(import.meta.dirname, 'results', `grid-fleet-${stamp}.txt`), `${out.join('\n')}\n\n${plans}`);
  say(`\nload average at the end: ${loadavg().map((n) => n.toFixed(2)).join(' ')}; plans in bench/load/results/grid-fleet-${stamp}.txt`);
} finally {
  await db.end();
  await server.close();
  if (kept === undefined) await admin.query(`drop schema ${schema} cascade`);
  await admin.end();
  rmSync(dataDir, { recursive: true, force: true });
}

async function passwordToken(base: string): Promise<string> {
  const response = await fetch(`${base}/realms/FirmscopeRealm/protocol/openid-connect/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'FirmscopeClient', username: ADMIN.email, password: ADMIN.password }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

/** Products, images, scans and findings, generated in SQL. */
async function generate(client: pg.Client): Promise<void> {
  const { rows: [who] } = await client.query<{ org_id: string; id: string }>('select org_id, id from users limit 1');
  const now = new Date().toISOString();
  // image numbers 1..2000: 1-200 p-large, 201-212 p-medium, 213 p-small, the rest in 35 products p-00..p-34
  await client.query(`
    insert into products (id, org_id, name, description, author_id, is_archived, create_time, update_time)
    select 'P' || lpad(n::text, 25, '0'), $1, case n when 1 then 'p-large' when 2 then 'p-medium' when 3 then 'p-small' else 'p-' || lpad((n - 4)::text, 2, '0') end,
      null, $2, 0, $3, $3
    from generate_series(1, 38) n`, [who!.org_id, who!.id, now]);
  await client.query(`
    insert into images (id, product_id, org_id, name, version, file_name, blob_key, size, sha256, sha1, md5, detected_type, author_id, is_archived, create_time, update_time)
    select 'I' || lpad(n::text, 25, '0'),
      'P' || lpad((case when n <= 200 then 1 when n <= 212 then 2 when n = 213 then 3 else 4 + (n - 214) % 35 end)::text, 25, '0'),
      $1, 'image-' || n, '1.0', 'fw.bin', 'images/none-' || n, 1, md5(n::text) || md5(n::text), substr(md5(n::text), 1, 40), md5(n::text), 'bin', $2, 0, $3, $3
    from generate_series(1, 2000) n`, [who!.org_id, who!.id, now]);
  // the scans that count, and an older completed scan for every fourth image
  await client.query(`
    insert into scans (id, image_id, product_id, org_id, author_id, state, state_id, state_time, create_time)
    select 'S' || lpad(i.n::text, 25, '0'), i.id, i.product_id, i.org_id, $1, 'done', 'X' || lpad(i.n::text, 25, '0'), $2, $2
    from (select id, product_id, org_id, substr(id, 2)::int as n from images) i`, [who!.id, now]);
  await client.query(`
    insert into scans (id, image_id, product_id, org_id, author_id, state, state_id, state_time, create_time)
    select 'R' || lpad(i.n::text, 25, '0'), i.id, i.product_id, i.org_id, $1, 'done', 'Y' || lpad(i.n::text, 25, '0'), '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'
    from (select id, product_id, org_id, substr(id, 2)::int as n from images) i where i.n % 4 = 0`, [who!.id]);
  const filler = 'x'.repeat(1800);
  await client.query(`
    insert into findings (id, scan_id, image_id, product_id, fingerprint, finding_type, pname, name, severity, cvss_score, epss_probability, is_kev,
      component_name, component_version, create_time, data)
    select 'F' || lpad((i.n * 1000 + k)::text, 25, '0'), 'S' || lpad(i.n::text, 25, '0'), i.id, i.product_id, 'fp-' || k, 'knownVulnerability',
      'CVE-2024-' || lpad(k::text, 5, '0'), 'Vulnerability ' || k,
      (array['critical', 'high', 'high', 'medium', 'medium', 'medium', 'low', 'low', 'informational', 'medium'])[1 + (k * 7 + i.n) % 10],
      ((k * 37 + i.n) % 100) / 10.0, ((k * 13) % 1000) / 1000.0, case when k % 97 = 0 then 1 else 0 end,
      'component-' || (k % 40), '1.' || (k % 9), $1,
      json_build_object('identifiers', json_build_array(json_build_object('type', 'cve', 'value', 'CVE-2024-' || lpad(k::text, 5, '0'))), 'description', $2::text)::text
    from (select id, product_id, substr(id, 2)::int as n from images) i cross join generate_series(1, 500) k`, [now, filler]);
  // some findings have an issue status (the grid joins them)
  await client.query(`
    insert into finding_statuses (product_id, fingerprint, status, update_time)
    select p.id, 'fp-' || k, case when k % 2 = 0 then 'inProgress' else 'remediated' end, $1
    from products p cross join generate_series(1, 500, 5) k`, [now]);
  await client.query('vacuum analyze');
}

/** EXPLAIN (ANALYZE, BUFFERS) of the statements of the first page of `productId`, as the store runs them. */
async function firstPagePlans(databaseUrl: string, productId: string): Promise<string> {
  const captured: CompiledQuery[] = [];
  const kysely = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl, max: 1 }) }),
    log: (event) => {
      if (event.level === 'query') captured.push(event.query);
    },
  });
  const orgId = (await kysely.selectFrom('products').select('org_id').where('id', '=', productId).executeTakeFirstOrThrow()).org_id;
  captured.length = 0;
  await queryFindingGrid(kysely, {
    orgId, conditions: [{ column: 'product_id', comparator: 'equals', values: [productId] }],
    sort: [{ column: 'severity_rank', direction: 'desc' }, { column: 'cvss_score', direction: 'desc' }], offset: 0, limit: 10,
  });
  const sections: string[] = [];
  for (const query of [...captured]) {
    const plan = await kysely.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (analyze, buffers) ${query.sql}`, [...query.parameters]));
    sections.push(`-- ${query.sql}\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
  await kysely.destroy();
  return sections.join('\n\n');
}

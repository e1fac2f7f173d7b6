// Upload and poll load through the real API on PostgreSQL: 50 concurrent clients (undici's fetch in bounded loops),
// each repeatedly uploading a small corpus image (generateUploadUrl → PUT → finalize) and polling its scan, the
// image list and the findings grid every 500 ms until the scan is completed (at most 120 s), for DURATION seconds;
// one server with two in-process scan workers (FIRMSCOPE_WORKERS=2). Reports p50/p95/p99 per route, the error count,
// and checks that no image is lost: every image whose finalize answered 201 exists with the SHA-256 of the bytes
// sent, and its scan ends done (after a bounded wait for the queue to drain).
// Run: FIRMSCOPE_BENCH_DATABASE_URL=postgres://… [FIRMSCOPE_LOAD_SECONDS=60] [FIRMSCOPE_SHARED_DIR=…] npx tsx bench/load/upload-poll.ts
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { percentiles } from './stats.js';

const base = process.env.FIRMSCOPE_BENCH_DATABASE_URL ?? process.env.FIRMSCOPE_TEST_DATABASE_URL;
if (!base) throw new Error('set FIRMSCOPE_BENCH_DATABASE_URL (or FIRMSCOPE_TEST_DATABASE_URL) to a PostgreSQL database');
const CLIENTS = 50;
const SECONDS = Number(process.env.FIRMSCOPE_LOAD_SECONDS ?? 60);
// ../shared beside the clone, or FIRMSCOPE_SHARED_DIR (as the tests find it)
const shared = process.env.FIRMSCOPE_SHARED_DIR ?? join(import.meta.dirname, '..', '..', '..', 'shared');
const CORPUS = ['ssl.key', 'pkcs12.p12', 'OVMF_VARS.secboot.fd', 'coreboot.rom'].map((name) => ({ name, bytes: readFileSync(join(shared, 'corpus', name)) }));
const ADMIN = { email: 'load@example.com', password: 'load-password-1' };

const schema = `bench_load_${Date.now().toString(36)}`;
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`create schema ${schema}`);
const url = new URL(base);
url.searchParams.set('options', `-c search_path=${schema}`);
const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-load-bench-'));
const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address() as AddressInfo;
    probe.close(() => resolve(free));
  });
});
const server = await startServer(loadConfig({
  PORT: String(port), HOST: '127.0.0.1', FIRMSCOPE_BASE_URL: `http://127.0.0.1:${port}`, DATABASE_URL: url.toString(), FIRMSCOPE_DATA_DIR: dataDir, FIRMSCOPE_WORKERS: '2', LOG_LEVEL: 'silent',
  FIRMSCOPE_ADMIN_EMAIL: ADMIN.email, FIRMSCOPE_ADMIN_PASSWORD: ADMIN.password, FIRMSCOPE_JOB_POLL_MS: '200',
  // 50 clients share one address here; the default 1,200 a minute per address is for clients on machines of their own
  FIRMSCOPE_RATE_LIMIT_PER_MINUTE: '1000000',
}));
const latencies = new Map<string, number[]>();
const errors: string[] = [];
const sent = new Map<string, string>();

async function request(route: string, target: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const t0 = performance.now();
  try {
    const response = await fetch(target.startsWith('http') ? target : `${server.url}${target}`, init);
    const text = await response.text();
    const ms = performance.now() - t0;
    latencies.set(route, [...(latencies.get(route) ?? []), ms]);
    if (response.status >= 400) errors.push(`${route}: ${response.status} ${text.slice(0, 200)}`);
    return { status: response.status, body: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
  } catch (error) {
    errors.push(`${route}: ${(error as Error).message}`);
    return { status: 0, body: undefined };
  }
}

try {
  const token = (await (await fetch(`${server.url}/realms/FirmscopeRealm/protocol/openid-connect/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'FirmscopeClient', username: ADMIN.email, password: ADMIN.password }),
  })).json() as { access_token: string }).access_token;
  const auth = { authorization: `Bearer ${token}` };
  const product = await request('POST /products', '/api/v4/products', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'load' }) });
  const productId = String(product.body.id).split('/')[1];
  const deadline = Date.now() + SECONDS * 1000;

  const client = async (c: number) => {
    for (let round = 0; Date.now() < deadline; round++) {
      const image = CORPUS[(c + round) % CORPUS.length]!;
      const name = `c${c}-r${round}`;
      const temp = await request('GET tempFiles:generateUploadUrl', `/api/v4/products/${productId}/tempFiles:generateUploadUrl`, { headers: auth });
      if (temp.status !== 200) continue;
      const put = await request('PUT uploadUrl', temp.body.uploadUrl, { method: 'PUT', body: image.bytes, headers: { 'content-type': 'application/octet-stream' } });
      if (put.status !== 200) continue;
      const fin = await request('POST images:upload', `/api/v4/products/${productId}/images:upload?tempFileId=${temp.body.id}&imageName=${name}`, { method: 'POST', headers: auth, body: new FormData() });
      if (fin.status !== 201) continue;
      sent.set(name, createHash('sha256').update(image.bytes).digest('hex'));
      const imageId = fin.body.id;
      const pollUntil = Date.now() + 120_000;
      while (Date.now() < pollUntil) {
        const scans = await request('GET images/{id}/scans', `/api/v4/products/${productId}/images/${imageId}/scans?status=true`, { headers: auth });
        const state = scans.body?.scans?.[0]?.latestScanState?.type;
        if (state === 'completed' || state === 'failed') break;
        await request('GET images', `/api/v4/products/${productId}/images`, { headers: auth });
        await request('POST findings:gridList', '/api/v4/grids/findings:gridList', {
          method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ filters: [{ field: 'imageId', value: imageId }] }),
        });
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  };
  const t0 = Date.now();
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  const loadEnd = loadavg();
  const elapsed = (Date.now() - t0) / 1000;

  // No image lost: every 201 is an image with the bytes' SHA-256, and its scan ends done.
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  const drainUntil = Date.now() + 300_000;
  while (Date.now() < drainUntil && Number((await db.query(`select count(*) n from scans where state in ('new', 'running')`)).rows[0].n) > 0) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const images = (await db.query<{ name: string; sha256: string; state: string }>(
    'select i.name, i.sha256, s.state from images i left join scans s on s.image_id = i.id',
  )).rows;
  await db.end();
  const lost = [...sent].filter(([name, sha]) => !images.some((i) => i.name === name && i.sha256 === sha && i.state === 'done'));

  const all = [...latencies.values()].reduce((n, list) => n + list.length, 0);
  console.log(`${new Date().toISOString()}: ${CLIENTS} clients for ${elapsed.toFixed(0)} s, one server with two scan workers, PostgreSQL; load average at the end ${loadEnd.map((n) => n.toFixed(2)).join(' ')}`);
  console.log('');
  console.log('| route | requests | p50 ms | p95 ms | p99 ms |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const [route, list] of latencies) {
    const p = percentiles(list);
    console.log(`| ${route} | ${p.n} | ${p.p50.toFixed(1)} | ${p.p95.toFixed(1)} | ${p.p99.toFixed(1)} |`);
  }
  console.log('');
  console.log(`requests ${all}, errors ${errors.length}${errors.length ? `: ${errors.slice(0, 5).join('; ')}` : ''}`);
  console.log(`images uploaded ${sent.size}, in the store with their SHA-256 and a done scan ${sent.size - lost.length}, lost ${lost.length}${lost.length ? `: ${lost.slice(0, 5).map(([n]) => n).join(', ')}` : ''}`);
} finally {
  await server.close();
  await admin.query(`drop schema ${schema} cascade`);
  await admin.end();
  rmSync(dataDir, { recursive: true, force: true });
}

// Benchmark: upload → `completed` over the API for one image (default: the OpenWrt corpus image), on the compiled
// service (SQLite in a fresh data folder, one in-process worker, its default poll interval), as a client sees it:
// from the start of the multipart upload to the first status read that says `completed` (read every 25 ms).
//   npm run build && npx tsx bench/scan/api.ts [IMAGE]        (BENCH_RUNS, default 3, after one warm-up scan)
// Every run analyses the image afresh: the analysis cache is off (the same bytes uploaded again would otherwise be
// an image-cache hit); BENCH_CACHE=1 keeps it on, to time the cached path.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ADMIN, call, passwordToken, testConfig, waitFor } from '../../test/support/server.js';

const project = resolve(import.meta.dirname, '..', '..');
const corpusDir = process.env.FIRMSCOPE_SHARED_DIR ? join(process.env.FIRMSCOPE_SHARED_DIR, 'corpus') : resolve(project, '..', 'shared', 'corpus');
const image = process.argv[2] ?? join(corpusDir, 'openwrt-ramips-mt7621-xiaomi_mir3g-v2-squashfs-sysupgrade.bin');
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));

// the compiled service, as `firmscope serve` runs it (its scan threads run compiled code too), with serve's heap
// settings (src/cli/start-up-heap.ts) made before its modules load
const { holdYoungGeneration } = (await import(pathToFileURL(join(project, 'dist', 'cli', 'start-up-heap.js')).href)) as typeof import('../../src/cli/start-up-heap.js');
holdYoungGeneration();
const { startServer } = (await import(pathToFileURL(join(project, 'dist', 'server.js')).href)) as typeof import('../../src/server.js');
const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-bench-api-'));
const cached = process.env.BENCH_CACHE === '1';
const config = await testConfig(dataDir, { FIRMSCOPE_JOB_POLL_MS: '1000', ...(cached ? {} : { FIRMSCOPE_ANALYSIS_CACHE_MAX_BYTES: '0' }) });
const server = await startServer(config);
try {
  const base = config.baseUrl;
  const token = await passwordToken(base, ADMIN.email, ADMIN.password);
  const product = await call(base, token, 'POST', '/api/v4/products', { name: 'bench' });
  if (product.status !== 201) throw new Error(`product: ${product.status} ${JSON.stringify(product.body)}`);
  const productId = (product.body.id as string).split('/')[1]; // 'products/<id>'
  const bytes = readFileSync(image);
  const once = async (n: number): Promise<number> => {
    const started = Date.now();
    const form = new FormData();
    form.set('imageName', `bench-${n}`);
    form.set('file', new Blob([bytes]), basename(image));
    const upload = await call(base, token, 'POST', `/api/v4/products/${productId}/images:upload`, form);
    if (upload.status !== 201) throw new Error(`upload: ${upload.status} ${JSON.stringify(upload.body)}`);
    const imageId = (upload.body.id as string).split('/').at(-1);
    await waitFor(async () => {
      const r = await call(base, token, 'GET', `/api/v4/products/${productId}/images/${imageId}/scans?status=true`);
      const type = r.body.scans?.[0]?.latestScanState?.type;
      if (type === 'failed') throw new Error(`scan failed: ${JSON.stringify(r.body.scans[0].latestScanState)}`);
      return type === 'completed' ? true : undefined;
    }, 600_000, 25);
    return Date.now() - started;
  };
  const first = await once(0);
  const times: number[] = [];
  for (let n = 1; n <= runs; n++) times.push(await once(n));
  const median = [...times].sort((a, b) => a - b)[Math.floor((times.length - 1) / 2)]!;
  console.log(`| upload → completed over the API, ${basename(image)}, analysis cache ${cached ? 'on' : 'off'} (${bytes.length.toLocaleString('en')} bytes) | first scan (thread start) ${(first / 1000).toFixed(2)} s; median of ${runs} next ${(median / 1000).toFixed(2)} s (${times.map((t) => (t / 1000).toFixed(2)).join(', ')}) |`);
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}

// Benchmark: peak RSS of the service while a client streams a 1 GB upload to a signed upload URL. The compiled
// service runs as its own process (`firmscope serve`, SQLite, no workers, so only the upload is measured); its
// peak RSS is the kernel's high-water mark (VmHWM in /proc/PID/status) once the upload is stored.
//   npm run build && npx tsx bench/scan/upload-rss.ts           (BENCH_UPLOAD_BYTES, default 1 GB)
import { spawn } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { ADMIN, call, freePort, passwordToken, waitFor } from '../../test/support/server.js';

const project = resolve(import.meta.dirname, '..', '..');
const bytes = Number(process.env.BENCH_UPLOAD_BYTES ?? 1e9);
const dataDir = mkdtempSync(join(tmpdir(), 'firmscope-bench-upload-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = spawn('node', [join(project, 'bin', 'firmscope.js'), 'serve'], {
  env: {
    ...process.env, PORT: String(port), HOST: '127.0.0.1', FIRMSCOPE_BASE_URL: base, FIRMSCOPE_DATA_DIR: dataDir, DATABASE_URL: '',
    FIRMSCOPE_ADMIN_EMAIL: ADMIN.email, FIRMSCOPE_ADMIN_PASSWORD: ADMIN.password, FIRMSCOPE_WORKERS: '0', LOG_LEVEL: 'silent',
  },
  stdio: 'ignore',
});
const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? NaN);

/** `total` bytes of incompressible data, made in 1 MiB chunks as they are read (the client holds one at a time). */
function generated(total: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      const size = Math.min(1 << 20, total - sent);
      const chunk = randomFillSync(Buffer.allocUnsafe(size));
      sent += size;
      this.push(chunk);
    },
  });
}

try {
  await waitFor(async () => ((await fetch(`${base}/healthz`).catch(() => undefined))?.ok ? true : undefined), 60_000, 100);
  const token = await passwordToken(base, ADMIN.email, ADMIN.password);
  const productId = ((await call(base, token, 'POST', '/api/v4/products', { name: 'upload bench' })).body.id as string).split('/')[1];
  const { uploadUrl } = (await call(base, token, 'GET', `/api/v4/products/${productId}/tempFiles:generateUploadUrl`)).body as { uploadUrl: string };
  const idle = kib('VmRSS');
  const started = Date.now();
  const body = Readable.toWeb(generated(bytes)) as ReadableStream<Uint8Array>;
  const put = await fetch(uploadUrl, { method: 'PUT', body, duplex: 'half', headers: { 'content-length': String(bytes) } } as RequestInit);
  if (!put.ok) throw new Error(`upload: ${put.status} ${await put.text()}`);
  const seconds = (Date.now() - started) / 1000;
  console.log(`| peak RSS of the service streaming a ${(bytes / 1e9).toFixed(2)} GB upload | ${(kib('VmHWM') / 1024).toFixed(0)} MB (${(idle / 1024).toFixed(0)} MB before it; upload ${seconds.toFixed(1)} s) |`);
} finally {
  server.kill();
  rmSync(dataDir, { recursive: true, force: true });
}

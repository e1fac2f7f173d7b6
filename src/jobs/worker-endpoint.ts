// The HTTP face of a `firmscope worker` (FIRMSCOPE_WORKER_PORT): GET /health (200 while it claims jobs, 503 while
// it drains) and GET /metrics for Prometheus. A plain node:http server: a worker has no API.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from '../services/metrics.js';
import type { JobWorker } from './worker.js';

export async function startWorkerEndpoint(worker: JobWorker, metrics: Metrics, port: number, host: string): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (path === '/health') {
      const { running, claiming } = worker.state;
      response.writeHead(claiming ? 200 : 503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: claiming ? 'ok' : 'draining', owner: worker.owner, runningJobs: running }));
    } else if (path === '/metrics') {
      metrics.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${String(error)}`),
      );
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /health or /metrics');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

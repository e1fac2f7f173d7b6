// Prometheus metrics (prom-client) of an API server or a worker, each on a registry of its own: the queue depth and
// scans by state (read from the database at each scrape, so every process reports the shared queue), a histogram
// of scan durations (scans this process ran) and HTTP latency by route (requests this process served).
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Repositories } from '../store/repositories.js';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  scanDuration: Histogram<'outcome'>;
}

export function createMetrics(repos: Repositories, role: 'api' | 'worker'): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ role });
  collectDefaultMetrics({ register: registry, prefix: 'firmscope_' });
  new Gauge({
    name: 'firmscope_jobs', help: 'Jobs in the shared queue by kind and status (queued = waiting, running = leased)', labelNames: ['kind', 'status'], registers: [registry],
    async collect() {
      this.reset();
      for (const row of await repos.jobs.countByStatus()) this.set({ kind: row.kind, status: row.status }, row.count);
    },
  });
  new Gauge({
    name: 'firmscope_scans', help: 'Scans by state', labelNames: ['state'], registers: [registry],
    async collect() {
      this.reset();
      for (const row of await repos.scans.countByState()) this.set({ state: row.state }, row.count);
    },
  });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'firmscope_http_request_duration_seconds', help: 'HTTP request latency by route template', labelNames: ['method', 'route', 'status'], registers: [registry],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    }),
    scanDuration: new Histogram({
      name: 'firmscope_scan_duration_seconds', help: 'Duration of the scans this process ran, by outcome', labelNames: ['outcome'], registers: [registry],
      buckets: [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
    }),
  };
}

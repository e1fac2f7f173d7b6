// GET /metrics (Prometheus text format) and GET /health, unauthenticated like /healthz: scrape them from inside the
// deployment's network only. Every response's latency is observed by route template (never the raw URL, so ids do
// not explode the label set).
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../services/metrics.js';

export function registerMetrics(app: FastifyInstance, metrics: Metrics, health: () => { ready: boolean; body: Record<string, unknown> }): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  const hidden = { schema: { hide: true } as Record<string, unknown> };
  app.get('/metrics', hidden, async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()));
  app.get('/health', hidden, async (_request, reply) => {
    const { ready, body } = health();
    return reply.status(ready ? 200 : 503).send(body);
  });
}

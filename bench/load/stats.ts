// Percentiles and timing shared by the load benchmarks.

/** p50, p95 and p99 of `values` (nearest rank), and their count. */
export function percentiles(values: number[]): { p50: number; p95: number; p99: number; n: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), n: sorted.length };
}

/** Milliseconds `run` took. */
export async function timed(run: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
}

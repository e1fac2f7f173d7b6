// An analysis cache in memory for engine tests, and the scan result as JSON without what measures time or counts
// the cache (what two scans of one image must agree on, cached or not).
import type { AnalysisCache } from '../../src/engine/analysis-cache.js';
import type { ScanResult } from '../../src/engine/types.js';

/** A cache in memory that counts its calls. */
export class MemoryCache implements AnalysisCache {
  readonly entries = new Map<string, string>();
  gets = 0;
  async get(keys: readonly string[]): Promise<Map<string, string>> {
    this.gets++;
    return new Map(keys.flatMap((k) => (this.entries.has(k) ? [[k, this.entries.get(k)!] as const] : [])));
  }
  async put(entries: ReadonlyArray<readonly [string, string]>): Promise<void> {
    for (const [k, v] of entries) this.entries.set(k, v);
  }
  /** A copy without the images' snapshots: only the files' results. */
  filesOnly(): MemoryCache {
    const copy = new MemoryCache();
    for (const [k, v] of this.entries) if (!v.startsWith('{"tree":')) copy.entries.set(k, v);
    return copy;
  }
}

/** The result as JSON without what measures time or counts the cache. */
export function stable(result: ScanResult): string {
  const { durationMs: _d, ...stats } = result.stats;
  const { cache: _c, ...summary } = result.summary ?? ({} as NonNullable<ScanResult['summary']>);
  return JSON.stringify({ ...result, stats, summary: { ...summary, phases: {}, durationMs: 0 } });
}

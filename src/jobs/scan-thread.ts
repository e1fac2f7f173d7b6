// Runs the engine inside a worker thread, one scan at a time, for as many scans as the thread lives (see
// engine-runner.ts): a long analysis never blocks the server's event loop, a cancelled one can be stopped hard,
// and a thread kept between scans keeps its database connection, its compiled code and the vulnerability records
// it has parsed (each checked against its stored import time before use), so the next scan starts warm.
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { prepareRuleThread } from '../engine/malware/rule-scanner.js';
import { scan, type ScanOptions } from '../engine/scan.js';
import { LocalFileStore } from '../engine/unpack/file-store.js';
import { AnalysisCacheRepository } from '../store/analysis-cache.repository.js';
import { openDatabase } from '../store/database.js';
import { VulnerabilityReader } from '../store/vulns-reader.js';

/** The thread's configuration, fixed for its life: the service database, for the vulnerability source. */
export interface ScanThreadConfig {
  database: { url?: string; dataDir: string };
}

/** One scan: the image's path and the engine's options that cross the thread boundary (plain data only). */
export interface ScanThreadInput extends Pick<ScanOptions, 'workDir' | 'imageName' | 'limits' | 'rules' | 'disabledBuiltinRules' | 'debugFiles'> {
  imagePath: string;
  /** The image's organisation: the scan reuses and keeps analysis results in its cache only (none when absent). */
  orgId?: string;
  /**
   * Cap of that organisation's analysis cache in bytes, and of the extracted files the data folder keeps for the
   * next version of an image (`<data dir>/file-store`, shared by the organisations: a file is placed from it only
   * where the organisation's own cache says which content its stored form decodes to); 0 or absent: neither.
   */
  analysisCacheMaxBytes?: number;
}

/** A scan, the abort of the running one, or the end of the thread (its database is closed, then it exits). */
export type ScanThreadRequest = { type: 'scan'; input: ScanThreadInput } | { type: 'abort' } | { type: 'close' };

export type ScanThreadMessage =
  | { type: 'progress'; phase: string; percent: number }
  | { type: 'result'; result: unknown }
  | { type: 'error'; message: string; name: string };

function main(): void {
  const config = workerData as ScanThreadConfig;
  const port = parentPort!;
  // opened once for the thread's life; a failure fails each scan with its reason
  const opened = openDatabase(config.database);
  opened.catch(() => undefined);
  const source = opened.then((database) => new VulnerabilityReader(database.db));
  source.catch(() => undefined);
  // the database connections are set up while the first scan unpacks, not when it matches
  void source.then((reader) => reader.warm()).catch(() => undefined);
  // and the rule thread reads the built-in rules' gates now, not at the first scan's first file
  prepareRuleThread();
  let controller: AbortController | undefined;

  async function run(input: ScanThreadInput): Promise<void> {
    const current = (controller = new AbortController());
    let fileStore: LocalFileStore | undefined;
    try {
      let last = 0;
      const { imagePath, orgId, analysisCacheMaxBytes, ...options } = input;
      const cacheOf = async () => (orgId && analysisCacheMaxBytes ? new AnalysisCacheRepository((await opened).db, orgId, analysisCacheMaxBytes) : undefined);
      const analysisCache = await cacheOf();
      fileStore = analysisCache ? new LocalFileStore(join(config.database.dataDir, 'file-store'), analysisCacheMaxBytes) : undefined;
      const result = await scan(imagePath, {
        ...options,
        analysisCache,
        fileStore,
        signal: current.signal,
        vulnerabilities: await source,
        onProgress: (p) => {
          // At most a few progress messages per second.
          const now = Date.now();
          if (now - last < 250 && p.percent !== 0 && p.percent !== 100) return;
          last = now;
          port.postMessage({ type: 'progress', phase: p.phase, percent: p.percent } satisfies ScanThreadMessage);
        },
      });
      port.postMessage({ type: 'result', result } satisfies ScanThreadMessage);
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      port.postMessage({ type: 'error', message: e.message, name: e.name } satisfies ScanThreadMessage);
    } finally {
      controller = undefined;
      try {
        fileStore?.trim(); // within its cap, oldest files first; after the scan, which linked from it
      } catch {
        // a store that cannot be trimmed costs disk, not the scan
      }
    }
  }

  port.on('message', (message: ScanThreadRequest) => {
    if (message.type === 'abort') controller?.abort(new Error('the scan was cancelled'));
    else if (message.type === 'scan') void run(message.input);
    else void opened.then((database) => database.close()).catch(() => undefined).finally(() => port.close());
  });
}

if (parentPort) main();

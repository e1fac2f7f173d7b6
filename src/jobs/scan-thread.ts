// Runs the engine on one image inside a worker thread, so a long analysis never blocks the server's event
// loop and a cancelled one can be stopped hard. Talks to its parent by messages (see engine-runner.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { scan } from '../engine/scan.js';
import type { Limits } from '../engine/unpack/limits.js';
import { openDatabase } from '../store/database.js';
import { VulnerabilityRepository } from '../store/vulns.repository.js';

export interface ScanThreadInput {
  imagePath: string;
  /** The uploaded file name, which names the image in the result (the stored file is named by its blob key). */
  imageName?: string;
  workDir: string;
  limits?: Partial<Limits>;
  /** The service database, for the vulnerability source. */
  database: { url?: string; dataDir: string };
}

export type ScanThreadMessage =
  | { type: 'progress'; phase: string; percent: number }
  | { type: 'result'; result: unknown }
  | { type: 'error'; message: string; name: string };

async function main(): Promise<void> {
  const input = workerData as ScanThreadInput;
  const port = parentPort!;
  const controller = new AbortController();
  port.on('message', (message: { type: string }) => {
    if (message.type === 'abort') controller.abort(new Error('the scan was cancelled'));
  });
  const database = await openDatabase(input.database);
  try {
    let last = 0;
    const result = await scan(input.imagePath, {
      workDir: input.workDir,
      imageName: input.imageName,
      limits: input.limits,
      signal: controller.signal,
      vulnerabilities: new VulnerabilityRepository(database.db),
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
    await database.close();
  }
}

if (parentPort) void main();

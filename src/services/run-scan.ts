// The scan use case, as the story: load the image → mark running → analyse in a thread → store the result
// → done. A failing analysis fails the scan with its reason; a cancelled one stops; a retried one (its
// previous worker died) starts over in a clean work folder. An image the engine refuses for a reason a person can
// act on (nothing recognised, the disk full) fails with that reason as it is; any other error is "analysis failed".
// A done scan keeps its summary (complete or not, and why) and its problems by level.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isEngineError } from '../engine/errors.js';
import { levelOf } from '../engine/problems.js';
import type { ScanResult } from '../engine/types.js';
import type { CustomRuleSource } from '../engine/malware/rules.js';
import type { DebugFileInput } from '../engine/binaries/debug-files.js';
import type { Limits } from '../engine/unpack/limits.js';
import type { BlobStore } from '../store/blob-store.js';
import { localDebugFiles } from './debug-files.js';
import { progressWriter } from './progress-writer.js';
import type { Repositories } from '../store/repositories.js';
import { writeResultDocument } from './result-document.js';
import { scanRules } from './rules.js';
import { moveScan } from './scan-transitions.js';

/** One analysis: the image, where to unpack it, and the organisation's malicious-code rules (services/rules.ts). */
export interface AnalyseInput {
  imagePath: string;
  imageName: string;
  /** The image's organisation, whose analysis cache the scan may use (engine/analysis-cache.ts). */
  orgId: string;
  workDir: string;
  limits?: Partial<Limits>;
  rules?: CustomRuleSource[];
  disabledBuiltinRules?: string[];
  /** The image's attached debug files, fetched into the work folder (services/debug-files.ts). */
  debugFiles?: DebugFileInput[];
}

export interface RunScanDeps {
  repos: Repositories;
  blobs: BlobStore;
  dataDir: string;
  /** Runs the engine (in a thread in production); rejects on failure or abort. */
  analyse(input: AnalyseInput, signal: AbortSignal, onProgress: (p: { phase: string; percent: number }) => void): Promise<ScanResult>;
  limits?: Partial<Limits>;
  /** The service's base URL, for the links of the scan's webhook events. */
  baseUrl?: string;
}

export type ScanOutcome = 'done' | 'failed' | 'cancelled' | 'skipped';

export async function runScan(deps: RunScanDeps, scanId: string, signal: AbortSignal, attempt: number): Promise<ScanOutcome> {
  const { repos, blobs } = deps;
  const scan = await repos.scans.getById(scanId);
  if (!scan) return 'skipped';
  if (scan.state !== 'new' && scan.state !== 'running') return scan.state === 'cancelled' ? 'cancelled' : 'skipped';
  const message = attempt > 1 ? `retry ${attempt}: the previous worker stopped before finishing` : 'analysis started';
  if (!(await repos.scans.transition(scan.id, ['new', 'running'], 'running', { message }))) return 'skipped';
  const image = await repos.images.getById(scan.imageId);
  if (!image) {
    await moveScan(repos, scan.id, ['running'], 'failed', { error: 'the image of this scan no longer exists', baseUrl: deps.baseUrl });
    return 'failed';
  }

  const workDir = join(deps.dataDir, 'work', scan.id);
  await rm(workDir, { recursive: true, force: true });
  await mkdir(workDir, { recursive: true });
  try {
    const imagePath = await blobs.localPath(image.blobKey, workDir);
    // the rules enabled now: a rule changed later applies to the scans after this one
    const rules = await scanRules(repos, image.orgId);
    const debugFiles = await localDebugFiles(repos, blobs, image.id, workDir);
    const progress = progressWriter((p) => repos.scans.setProgress(scan.id, p.phase, p.percent));
    let result: ScanResult;
    try {
      result = await deps.analyse({ imagePath, imageName: image.fileName, orgId: image.orgId, workDir: join(workDir, 'extract'), limits: deps.limits, ...rules, debugFiles }, signal, progress.update);
    } finally {
      progress.stop();
    }
    signal.throwIfAborted();
    const key = await writeResultDocument(blobs, scan.id, result);
    await repos.results.store({ scanId: scan.id, imageId: image.id, productId: image.productId }, result);
    await repos.scans.setResult(scan.id, key, result.engineVersion);
    await repos.scans.setOutcome(scan.id, result.summary, result.problems.map((p) => ({ ...p, level: levelOf(p) })));
    if (result.image.type) await repos.images.update(image.productId, image.id, { detectedType: result.image.type });
    const incomplete = result.summary && !result.summary.complete ? `; analysis incomplete: ${result.summary.incompleteReasons.join('; ')}` : '';
    const moved = await moveScan(repos, scan.id, ['running'], 'done', {
      baseUrl: deps.baseUrl,
      message: `analysis finished: ${result.components.length} components, ${result.findings.length} findings, ${result.problems.length} problems${incomplete}`,
    });
    return moved ? 'done' : 'cancelled';
  } catch (error) {
    if (signal.aborted) {
      // Cancelled by request (the scan state already says so) or the lease was lost (another worker retries).
      return 'cancelled';
    }
    const reason = error instanceof Error ? error.message : String(error);
    // (not moved: the scan was cancelled while its analysis failed, before the worker heard of it)
    const moved = await moveScan(repos, scan.id, ['running'], 'failed', { error: isEngineError(error) ? reason : `analysis failed: ${reason}`, baseUrl: deps.baseUrl });
    return moved ? 'failed' : 'cancelled';
  } finally {
    await rm(workDir, { recursive: true, force: true }).catch(() => {});
  }
}

// Scan use cases: create a scan (and its job), and move its state by request. `cancelled` (and any move
// that ends a running scan) really stops the work: the job is cancelled and its worker aborts.
import type { Principal } from '../auth/principal.js';
import type { Image } from '../store/image.repository.js';
import type { Scan, ScanStateRecord } from '../store/scan.repository.js';
import type { ScanStateType } from '../store/schema.js';

export type { Scan, ScanStateType };
import type { StoredComponent } from '../store/result.repository.js';
import { requireImage } from './access.js';
import { ConflictError, NotReadyError } from '../errors.js';
import type { Repositories } from '../store/repositories.js';
import { moveScan } from './scan-transitions.js';

export const SCAN_JOB = 'scan';

/** Moves a request may make (API-NOTES): new → running → done | failed; cancelled from new or running. */
export const TRANSITIONS: Record<ScanStateType, ScanStateType[]> = {
  new: ['running', 'cancelled'],
  running: ['done', 'failed', 'cancelled'],
  done: [],
  failed: [],
  cancelled: [],
};

/** Creates a scan in state `new` and the durable job that runs it, atomically. */
export async function createScan(repos: Repositories, image: Image, authorId: string): Promise<Scan> {
  return repos.transaction((tx) => createScanIn(tx, image, authorId));
}

/** The scan and its job, written through repositories the caller has opened on its own transaction. */
export async function createScanIn(tx: Repositories, image: Image, authorId: string): Promise<Scan> {
  const scan = await tx.scans.create({ imageId: image.id, productId: image.productId, orgId: image.orgId, authorId });
  await tx.jobs.enqueue({ kind: SCAN_JOB, scanId: scan.id, payload: { scanId: scan.id }, maxAttempts: 3 });
  return scan;
}

export async function listScans(repos: Repositories, principal: Principal, productId: string, imageId: string): Promise<Scan[]> {
  const { image } = await requireImage(repos, principal, productId, imageId);
  return repos.scans.listByImage(image.id);
}

/** The components a finished scan found; NotReadyError before it is done. */
export async function scanComponents(repos: Repositories, scan: Scan): Promise<StoredComponent[]> {
  if (scan.state !== 'done') throw new NotReadyError(`scan ${scan.id} is '${scan.state}'; components are available once it is done`);
  return repos.results.components(scan.id);
}

/** Every state the scan went through, oldest first (the worker's moves and people's requests). */
export function scanStateHistory(repos: Repositories, scan: Scan): Promise<ScanStateRecord[]> {
  return repos.scans.states(scan.id);
}

export async function setScanState(repos: Repositories, principal: Principal, scan: Scan, to: ScanStateType, baseUrl?: string): Promise<Scan> {
  const allowed = TRANSITIONS[scan.state];
  if (!allowed.includes(to)) {
    throw new ConflictError(
      `scan ${scan.id} cannot move from '${scan.state}' to '${to}'` +
        (allowed.length ? `; allowed from '${scan.state}': ${allowed.join(', ')}` : `; '${scan.state}' is final`),
      [{ reason: 'transitionNotAllowed', field: 'type' }],
    );
  }
  const moved = await moveScan(repos, scan.id, [scan.state], to, {
    baseUrl,
    authorId: principal.userId,
    message: `set to ${to} by ${principal.email}`,
    error: to === 'failed' ? `marked failed by ${principal.email}` : null,
  });
  if (!moved) {
    const now = await repos.scans.getById(scan.id);
    throw new ConflictError(`scan ${scan.id} changed state to '${now?.state}' meanwhile; cannot move it to '${to}'`, [{ reason: 'transitionNotAllowed', field: 'type' }]);
  }
  if (to === 'cancelled' || to === 'done' || to === 'failed') await repos.jobs.requestCancel(scan.id);
  return (await repos.scans.getById(scan.id))!;
}

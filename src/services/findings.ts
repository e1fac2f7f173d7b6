// One finding in full (with its status history) and its workflow: setting the issue status of the finding's
// fingerprint in the product, carried forward to later images.
import type { Principal } from '../auth/principal.js';
import type { VexJustification } from '../engine/types.js';
import type { IssueStatus, StatusChange, StoredFinding } from '../store/finding.repository.js';

// The workflow's vocabularies, for the routes' schemas.
export { ISSUE_STATUSES } from '../store/finding.repository.js';
export { VEX_JUSTIFICATIONS } from '../engine/types.js';
import { requireProduct } from './access.js';
import { InvalidInputError, NotFoundError } from '../errors.js';
import type { Repositories } from '../store/repositories.js';
import { emitEvent } from './webhook-events.js';

export interface FindingWithHistory {
  finding: StoredFinding;
  history: StatusChange[];
}

async function requireFinding(repos: Repositories, principal: Principal, productId: string, findingId: string): Promise<StoredFinding> {
  const product = await requireProduct(repos, principal, productId);
  const finding = await repos.findings.get(product.id, findingId);
  if (!finding) throw new NotFoundError(`finding ${findingId} not found in product ${productId}`, [{ reason: 'notFound', field: 'findingId' }]);
  return finding;
}

async function withHistory(repos: Repositories, finding: StoredFinding): Promise<FindingWithHistory> {
  return { finding, history: await repos.findings.history(finding.productId, finding.fingerprint) };
}

export async function getFinding(repos: Repositories, principal: Principal, productId: string, findingId: string): Promise<FindingWithHistory> {
  return withHistory(repos, await requireFinding(repos, principal, productId, findingId));
}

export interface StatusRequest {
  /** An issue status; 'in progress' is accepted for inProgress. */
  status: string;
  comment?: string;
  justification?: VexJustification;
}

/** Spellings of inProgress that clients send (the interface's own examples write 'in progress'). */
export const ISSUE_STATUS_ALIASES: ReadonlyMap<string, IssueStatus> = new Map([['in progress', 'inProgress'], ['inprogress', 'inProgress'], ['in_progress', 'inProgress']]);

const normaliseStatus = (status: string): IssueStatus => ISSUE_STATUS_ALIASES.get(status.toLowerCase()) ?? (status as IssueStatus);

/** A justification says why a finding does not apply, so it only goes with status rejected (VEX not_affected). */
function justificationFor(status: IssueStatus, justification: VexJustification | undefined, field: string): VexJustification | null {
  if (justification === undefined) return null;
  if (status !== 'rejected') {
    throw new InvalidInputError(`${field} applies only to status rejected (not affected), not to ${status}`, [{ reason: 'invalidArgument', field }]);
  }
  return justification;
}

/** Sets the status; returns the finding it was set through and the recorded change. */
export async function setFindingStatus(
  repos: Repositories, principal: Principal, productId: string, findingId: string, request: StatusRequest, baseUrl?: string,
): Promise<{ finding: StoredFinding; change: StatusChange }> {
  const finding = await requireFinding(repos, principal, productId, findingId);
  const status = normaliseStatus(request.status);
  const justification = justificationFor(status, request.justification, 'justification');
  const change = await repos.transaction(async (tx) => {
    const recorded = await tx.findings.setStatus(finding, status, request.comment ?? null, principal.userId, justification);
    await emitEvent(tx, {
      orgId: principal.orgId, type: 'finding.statusChanged', baseUrl,
      data: {
        productId: finding.productId, imageId: finding.imageId, scanId: finding.scanId, findingId: finding.id, fingerprint: finding.fingerprint,
        status, previousStatus: finding.issueStatus, ...(justification ? { justification } : {}),
      },
    });
    return recorded;
  });
  return { finding, change };
}

/** Sets the status and returns the finding as it now is, in full. */
export async function updateFindingStatus(
  repos: Repositories, principal: Principal, productId: string, findingId: string, request: StatusRequest, baseUrl?: string,
): Promise<FindingWithHistory> {
  const { finding } = await setFindingStatus(repos, principal, productId, findingId, request, baseUrl);
  return withHistory(repos, (await repos.findings.get(finding.productId, finding.id))!);
}

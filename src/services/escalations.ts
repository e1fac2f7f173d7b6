// Escalations of a product (findings whose risk rose after the vulnerability database changed): list, acknowledge.
import type { Principal } from '../auth/principal.js';
import type { Escalation, EscalationFilter } from '../store/escalation.repository.js';

export type { Escalation };
import { requireProduct } from './access.js';
import type { Repositories } from '../store/repositories.js';

export async function listEscalations(repos: Repositories, principal: Principal, productId: string, filter: EscalationFilter): Promise<Escalation[]> {
  const product = await requireProduct(repos, principal, productId);
  return repos.escalations.list(product.id, filter);
}

/** How many of the escalations were open and are now acknowledged. */
export async function acknowledgeEscalations(repos: Repositories, principal: Principal, productId: string, ids: string[]): Promise<number> {
  const product = await requireProduct(repos, principal, productId);
  return repos.escalations.acknowledge(product.id, ids);
}

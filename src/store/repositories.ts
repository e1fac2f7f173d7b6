// The store's composition root: the repositories of one database, built once and passed to whoever needs them.
// The database handle stays inside: a unit of work that must be atomic runs through `transaction`, which hands
// it repositories bound to one transaction.
import type { Kysely } from 'kysely';
import { BinaryRepository } from './binary.repository.js';
import type { Dialect } from './database.js';
import { EscalationRepository } from './escalation.repository.js';
import { FindingRepository } from './finding.repository.js';
import { GridRepository } from './grid.repository.js';
import { IdentityRepository } from './identity.repository.js';
import { ImageOverviewRepository } from './image-overview.repository.js';
import { ImageRepository } from './image.repository.js';
import { JobRepository } from './job.repository.js';
import { ProductRepository } from './product.repository.js';
import { ResultRepository } from './result.repository.js';
import { RuleRepository } from './rule.repository.js';
import { ScanRepository } from './scan.repository.js';
import type { Database } from './schema.js';
import { WebhookRepository } from './webhook.repository.js';

export interface Repositories {
  identities: IdentityRepository;
  products: ProductRepository;
  images: ImageRepository;
  overviews: ImageOverviewRepository;
  scans: ScanRepository;
  jobs: JobRepository;
  results: ResultRepository;
  binaries: BinaryRepository;
  findings: FindingRepository;
  escalations: EscalationRepository;
  rules: RuleRepository;
  grids: GridRepository;
  webhooks: WebhookRepository;
  /**
   * Runs `fn` with repositories bound to one transaction: committed when it resolves, rolled back when it
   * throws. Inside a transaction already, `fn` joins it.
   */
  transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T>;
}

/**
 * `afterCommit` runs a callback once the transaction the repositories are bound to has committed (at once
 * outside a transaction): a queued job is announced only when a worker can see it.
 */
export function createRepositories(db: Kysely<Database>, dialect: Dialect, afterCommit: (fn: () => void) => void = (fn) => fn()): Repositories {
  const repos: Repositories = {
    identities: new IdentityRepository(db),
    products: new ProductRepository(db),
    images: new ImageRepository(db),
    overviews: new ImageOverviewRepository(db),
    scans: new ScanRepository(db),
    jobs: new JobRepository(db, dialect, afterCommit),
    results: new ResultRepository(db),
    binaries: new BinaryRepository(db),
    findings: new FindingRepository(db),
    escalations: new EscalationRepository(db),
    rules: new RuleRepository(db),
    grids: new GridRepository(db),
    webhooks: new WebhookRepository(db),
    transaction: (fn) => (db.isTransaction ? fn(repos) : inTransaction(db, dialect, fn)),
  };
  return repos;
}

async function inTransaction<T>(db: Kysely<Database>, dialect: Dialect, fn: (tx: Repositories) => Promise<T>): Promise<T> {
  const committed: Array<() => void> = [];
  const result = await db.transaction().execute((trx) => fn(createRepositories(trx, dialect, (callback) => committed.push(callback))));
  for (const callback of committed) callback();
  return result;
}

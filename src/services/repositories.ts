// The repositories of one database, built once and passed to whoever needs them.
import type { Kysely } from 'kysely';
import { BinaryRepository } from '../store/binary.repository.js';
import type { Dialect } from '../store/database.js';
import { EscalationRepository } from '../store/escalation.repository.js';
import { IdentityRepository } from '../store/identity.repository.js';
import { ImageOverviewRepository } from '../store/image-overview.repository.js';
import { ImageRepository } from '../store/image.repository.js';
import { JobRepository } from '../store/job.repository.js';
import { ProductRepository } from '../store/product.repository.js';
import { ResultRepository } from '../store/result.repository.js';
import { RuleRepository } from '../store/rule.repository.js';
import { FindingRepository } from '../store/finding.repository.js';
import { ScanRepository } from '../store/scan.repository.js';
import type { Database } from '../store/schema.js';

export interface Repositories {
  db: Kysely<Database>;
  dialect: Dialect;
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
}

export function createRepositories(db: Kysely<Database>, dialect: Dialect): Repositories {
  return {
    db,
    dialect,
    identities: new IdentityRepository(db),
    products: new ProductRepository(db),
    images: new ImageRepository(db),
    overviews: new ImageOverviewRepository(db),
    scans: new ScanRepository(db),
    jobs: new JobRepository(db, dialect),
    results: new ResultRepository(db),
    binaries: new BinaryRepository(db),
    findings: new FindingRepository(db),
    escalations: new EscalationRepository(db),
    rules: new RuleRepository(db),
  };
}

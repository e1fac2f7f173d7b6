// The store's repositories over one database handle (a test's own connection), as the services take them.
import type { Kysely } from 'kysely';
import { dialectOf } from '../../src/store/database.js';
import { createRepositories, type Repositories } from '../../src/store/repositories.js';
import type { Database } from '../../src/store/schema.js';

export function reposOf(db: Kysely<Database>): Repositories {
  return createRepositories(db, dialectOf(db));
}

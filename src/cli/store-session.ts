// Runs an operator command against the service's store (same DATABASE_URL / FIRMSCOPE_DATA_DIR as `serve`).
import { loadConfig, type Config } from '../config.js';
import { createRepositories, type Repositories } from '../store/repositories.js';
import { openDatabase } from '../store/database.js';

export async function withRepositories<T>(fn: (repos: Repositories, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  try {
    return await fn(createRepositories(database.db, database.dialect), config);
  } finally {
    await database.close();
  }
}

// Where the SQLite database lives, without loading the database drivers: `firmscope scan` asks whether a local
// vulnerability database exists before it loads Kysely, better-sqlite3 and pg (a few hundred modules).
import { join } from 'node:path';

/** Where the SQLite database lives: the `sqlite:` URL's path, or firmscope.db in the data folder. */
export function sqlitePath(url: string | undefined, dataDir: string): string {
  if (url) {
    const path = url.replace(/^sqlite:(\/\/)?/i, '');
    if (path) return path;
  }
  return join(dataDir, 'firmscope.db');
}

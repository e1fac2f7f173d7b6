// Unique-constraint violations of either database, turned into the domain ConflictError. A check-then-insert
// cannot stop two concurrent requests from inserting the same key; the constraint does, and this maps its error
// (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY) to a 409 instead of a 500.
import { ConflictError } from '../errors.js';

const UNIQUE_CODES = new Set(['23505', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNIQUE_CODES.has(code);
}

/** Runs `work`; a unique violation it raises becomes ConflictError(`message`), any other error passes through. */
export async function conflictOnDuplicate<T>(message: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(message);
    throw error;
  }
}

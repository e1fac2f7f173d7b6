// The problems of a finished scan, a page at a time and optionally of some levels only. Paging follows the grid
// routes (API-NOTES): a 1-based page number (0 means 1), a page size of 10 by default and at most 100, and the
// answer { total, rows }.
import type { ProblemLevel } from '../engine/types.js';
import { PROBLEM_LEVELS } from '../engine/problems.js';
import type { Scan, StoredProblem } from '../store/scan.repository.js';
import { InvalidInputError, NotReadyError } from '../errors.js';
import { MAX_PAGE_SIZE } from './grid-request.js';
import type { Repositories } from '../store/repositories.js';

export interface ProblemQuery {
  /** One level or a comma-separated list: info, warning, error. */
  level?: string;
  page?: number;
  size?: number;
}

export async function listScanProblems(repos: Repositories, scan: Scan, query: ProblemQuery): Promise<{ total: number; rows: StoredProblem[] }> {
  const levels = parseLevels(query.level);
  const size = query.size ?? 10;
  const num = Math.max(1, query.page ?? 1);
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) bad(`size must be 1 to ${MAX_PAGE_SIZE}`, 'size');
  if (!Number.isInteger(num)) bad('page must be a positive integer (1-based)', 'page');
  if (scan.state !== 'done') throw new NotReadyError(`scan ${scan.id} is '${scan.state}'; problems are available once it is done`);
  return repos.scans.listProblems(scan.id, { levels, offset: (num - 1) * size, limit: size });
}

function parseLevels(raw: string | undefined): ProblemLevel[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const levels = raw.split(',').map((l) => l.trim().toLowerCase());
  const unknown = levels.find((l) => !(PROBLEM_LEVELS as readonly string[]).includes(l));
  if (unknown !== undefined) bad(`level: unknown level '${unknown}'; use ${PROBLEM_LEVELS.join(', ')} (or several, comma-separated)`, 'level');
  return levels as ProblemLevel[];
}

function bad(message: string, field: string): never {
  throw new InvalidInputError(message, [{ reason: 'invalid', field }]);
}

// How much each problem matters, and the summary that says whether a scan's result can be trusted. The level of a
// problem is decided here, from its kind, so that the dozens of handlers that record problems need not each
// decide it; a producer that knows better sets `level` itself (chunks.ts: a carved candidate that turned out not
// to be its format is only 'info'). The rules:
//   - limit (depth, bytes, files, time reached)  → error: part of the image was not extracted
//   - error (a container that could not be decoded, a filesystem error, a crashed analyzer) → error
//   - warning (a stream that may be truncated, a name clash, conflicting versions) → warning
//   - skipped (a loop, a file an identifier does not support) → info
// A scan is complete when it has no problem of level error.
import type { Problem, ProblemLevel, ScanSummary } from './types.js';

const BY_KIND: Record<Problem['kind'], ProblemLevel> = { limit: 'error', error: 'error', warning: 'warning', skipped: 'info' };

export const PROBLEM_LEVELS: readonly ProblemLevel[] = ['info', 'warning', 'error'];

export function levelOf(problem: Problem): ProblemLevel {
  return problem.level ?? BY_KIND[problem.kind];
}

/** Sets every problem's level (in place) and returns the list. */
export function withLevels(problems: Problem[]): Problem[] {
  for (const problem of problems) problem.level = levelOf(problem);
  return problems;
}

/** At most this many reasons are listed; the rest are counted in one last line. */
const MAX_REASONS = 10;

export interface SummaryInput {
  problems: Problem[];
  filesExtracted: number;
  bytesExtracted: number;
  formats: Record<string, number>;
  imageSize: number;
  /** Bytes of the image itself inside accepted chunks. */
  coveredBytes: number;
  phases: Record<string, number>;
  durationMs: number;
}

export function summarise(input: SummaryInput): ScanSummary {
  const counts: Record<ProblemLevel, number> = { info: 0, warning: 0, error: 0 };
  for (const problem of input.problems) counts[levelOf(problem)]++;
  const reasons = incompleteReasons(input.problems);
  return {
    filesExtracted: input.filesExtracted,
    bytesExtracted: input.bytesExtracted,
    formats: input.formats,
    coverage: input.imageSize > 0 ? Math.min(1, input.coveredBytes / input.imageSize) : 0,
    problems: counts,
    phases: input.phases,
    durationMs: input.durationMs,
    complete: reasons.length === 0,
    incompleteReasons: reasons,
  };
}

/** One line per distinct error: where, who and what ("tr.gz at 0: gzip: truncated stream (...)"), at most MAX_REASONS. */
function incompleteReasons(problems: Problem[]): string[] {
  const errors = problems.filter((p) => levelOf(p) === 'error').map(describeProblem);
  const listed = new Set([...new Set(errors)].slice(0, MAX_REASONS));
  const rest = errors.filter((line) => !listed.has(line)).length;
  return rest > 0 ? [...listed, `and ${rest} more error(s); see the scan's problems`] : [...listed];
}

export function describeProblem(problem: Problem): string {
  const where = problem.path === undefined ? '' : problem.offset === undefined ? `${problem.path}: ` : `${problem.path} at ${problem.offset}: `;
  const message = problem.message.startsWith(`${problem.source}:`) ? problem.message : `${problem.source}: ${problem.message}`;
  return `${where}${message}`;
}

/** Content types (engine/file-type.ts) that the analyzers read on their own: executables, keys, certificates, scripts. */
const ANALYSABLE_TYPES = new Set([
  'elf', 'pe', 'mach-o', 'java-class', 'dex', 'script',
  'certificate-pem', 'private-key-pem', 'public-key-pem', 'csr-pem', 'pgp-key', 'pem', 'der',
]);

const DESCRIPTIONS: Record<string, string> = {
  empty: 'the file is empty',
  data: 'the file looks like binary data of no known format',
  xml: 'the file looks like an XML document',
  html: 'the file looks like an HTML document',
  json: 'the file looks like a JSON document',
  png: 'the file looks like a PNG image',
  jpeg: 'the file looks like a JPEG image',
  gif: 'the file looks like a GIF image',
  pdf: 'the file looks like a PDF document',
  sqlite: 'the file looks like an SQLite database',
};

export interface RecognitionInput {
  /** The image's content type (engine/file-type.ts). */
  type: string;
  /** The image's first bytes. */
  head: Buffer;
  /** Accepted chunks at any depth. */
  formats: Record<string, number>;
  /** Problems of level error: a format was recognised but could not be decoded. */
  errors: number;
  /** What the analyzers found in it. */
  found: number;
}

/**
 * Why the image cannot be analysed at all, or undefined when it can: nothing was recognised (no format, not even a
 * broken one) and nothing is analysable (not an executable, key, certificate or script, and no analyzer found
 * anything in it). E.g. "no known firmware format; the file looks like ASCII text".
 */
export function unrecognisedReason(input: RecognitionInput): string | undefined {
  if (Object.keys(input.formats).length > 0 || input.errors > 0 || input.found > 0) return undefined;
  if (ANALYSABLE_TYPES.has(input.type)) return undefined;
  return `no known firmware format; ${describeContent(input.type, input.head)}`;
}

function describeContent(type: string, head: Buffer): string {
  if (type === 'text') return head.every((b) => b < 0x80) ? 'the file looks like ASCII text' : 'the file looks like text';
  return DESCRIPTIONS[type] ?? `the file starts like ${type} data but is not a valid ${type} stream or container`;
}

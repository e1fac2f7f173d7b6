// Chunk selection for one file: walks the scanner's candidates in start order, asks each handler for its exact
// extent, keeps the first valid chunk at each start (highest confidence first), skips candidates inside an
// accepted chunk, and reports the gaps between chunks as unknown ranges.
import { FormatError } from '../format-error.js';
import { LimitError, type ChunkInfo, type Handler, type Reader } from './handler.js';
import type { Budget } from './limits.js';
import type { SignatureScanner } from './scanner.js';
import type { Problem } from '../types.js';

export interface AcceptedChunk {
  handler: Handler;
  info: ChunkInfo;
}

export interface ChunkSelection {
  chunks: AcceptedChunk[];
  gaps: Array<{ offset: number; size: number }>;
  problems: Problem[];
  /** Set when a limit stopped the search; chunks found before it are kept. */
  limit?: LimitError;
}

export async function selectChunks(
  reader: Reader,
  scanner: SignatureScanner,
  budget: Budget,
  path: string,
): Promise<ChunkSelection> {
  const chunks: AcceptedChunk[] = [];
  const problems: Problem[] = [];
  let consumed = 0;
  let limit: LimitError | undefined;
  try {
    for await (const candidate of scanner.candidates(reader, () => consumed, budget.signal)) {
      budget.checkTime();
      if (candidate.start < consumed) continue;
      const { handler, start } = candidate;
      let info: ChunkInfo | null;
      try {
        info = await handler.chunk(reader, start, {
          signal: budget.signal,
          maxOutput: Math.max(0, budget.limits.maxTotalBytes - budget.bytes),
        });
      } catch (error) {
        if (error instanceof LimitError) {
          // A bounded count-only decode ran out of budget: this chunk cannot be extracted, the rest can.
          if (error.limit === 'time') throw error;
          problems.push({ source: handler.id, path, offset: start, kind: 'limit', message: error.message });
          continue;
        }
        if (budget.signal.aborted) throw budget.signal.reason;
        // A file that starts with the format's magic and cannot be decoded is a broken container (an error: the
        // analysis misses what it holds). A candidate found by carving inside other data (a zlib or zstd magic
        // in an executable) that is not the format is normal: only 'info'; a handler bug there is a warning.
        const carved = start > 0;
        if (error instanceof FormatError) {
          problems.push({ source: handler.id, path, offset: start, kind: 'error', level: carved ? 'info' : 'error', message: error.message });
        } else {
          const message = error instanceof Error ? error.message : String(error);
          problems.push({
            source: handler.id, path, offset: start, kind: 'error', level: carved ? 'warning' : 'error',
            message: `handler bug: ${handler.id} at offset ${start}: ${message}`,
          });
        }
        continue;
      }
      if (!info) continue;
      if (!(info.start === start && info.end > start && info.end <= reader.size && Number.isSafeInteger(info.end))) {
        problems.push({
          source: handler.id,
          path,
          offset: start,
          kind: 'error',
          message: `handler bug: ${handler.id} at offset ${start} returned an invalid extent [${info.start}, ${info.end}) for a file of ${reader.size} bytes`,
        });
        continue;
      }
      chunks.push({ handler, info });
      consumed = info.end;
    }
  } catch (error) {
    if (error instanceof LimitError) limit = error;
    else if (budget.signal.aborted && budget.signal.reason instanceof LimitError) limit = budget.signal.reason;
    else throw error;
  }
  return { chunks, gaps: gapsBetween(chunks, reader.size), problems, limit };
}

function gapsBetween(chunks: AcceptedChunk[], size: number): Array<{ offset: number; size: number }> {
  if (chunks.length === 0) return [];
  const gaps: Array<{ offset: number; size: number }> = [];
  let at = 0;
  for (const { info } of chunks) {
    if (info.start > at) gaps.push({ offset: at, size: info.start - at });
    at = info.end;
  }
  if (at < size) gaps.push({ offset: at, size: size - at });
  return gaps;
}

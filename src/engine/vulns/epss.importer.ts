// FIRST EPSS daily CSV (epss_scores-YYYY-MM-DD.csv[.gz]):
//   #model_version:v2025.03.14,score_date:2025-08-25T12:55:00Z
//   cve,epss,percentile
//   CVE-1999-0001,0.01297,0.79044
// Read line by line from a (decompressed) stream; a bad line is reported and skipped.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { FormatError } from '../format-error.js';
import { CVE_ID } from './feed-values.js';

export interface EpssEntry {
  cveId: string;
  probability: number;
  percentile: number;
  date?: string;
}

export type EpssLine =
  | { kind: 'entry'; entry: EpssEntry }
  | { kind: 'date'; date: string }
  | { kind: 'error'; line: number; message: string };

export async function* readEpssCsv(stream: Readable): AsyncGenerator<EpssLine> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNo = 0;
  let date: string | undefined;
  let columns: { cve: number; epss: number; percentile: number } | undefined;
  for await (const raw of lines) {
    lineNo++;
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const d = /score_date:([0-9T:.+\-Z]+)/.exec(line)?.[1];
      if (d) {
        date = d.slice(0, 10);
        yield { kind: 'date', date };
      }
      continue;
    }
    const cells = line.split(',').map((c) => c.trim());
    if (!columns) {
      const header = cells.map((c) => c.toLowerCase());
      const cve = header.indexOf('cve');
      const epss = header.indexOf('epss');
      const percentile = header.indexOf('percentile');
      if (cve < 0 || epss < 0 || percentile < 0) {
        throw new FormatError(`line ${lineNo}: expected a 'cve,epss,percentile' header, got '${line.slice(0, 80)}'`);
      }
      columns = { cve, epss, percentile };
      continue;
    }
    const cveId = cells[columns.cve] ?? '';
    const probability = Number(cells[columns.epss]);
    const percentile = Number(cells[columns.percentile]);
    if (!CVE_ID.test(cveId) || cells[columns.epss] === '' || !(probability >= 0 && probability <= 1) || !(percentile >= 0 && percentile <= 1)) {
      yield { kind: 'error', line: lineNo, message: `malformed EPSS row '${line.slice(0, 80)}'` };
      continue;
    }
    const entry: EpssEntry = { cveId, probability, percentile };
    if (date) entry.date = date;
    yield { kind: 'entry', entry };
  }
  if (!columns) throw new FormatError('no EPSS header line (cve,epss,percentile)');
}

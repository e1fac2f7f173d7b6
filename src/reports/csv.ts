// CSV as the reports and grid exports write it: RFC 4180 quoting and CRLF line ends by csv-stringify, and cells
// that a spreadsheet would run as a formula (=, +, -, @, tab, CR first) prefixed with a quote.
import { stringify } from 'csv-stringify/sync';

/** The cell's text, neutralised when a spreadsheet would run it as a formula. */
function cellText(value: unknown): string {
  const text = value === undefined || value === null ? '' : String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** A header line and one line per row of cell values. */
export function reportCsv(header: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  return stringify([[...header]], CSV_OPTIONS) + csvLines(rows);
}

/** One line per row of cell values, no header: a part of a CSV written in pieces (a streamed export). */
export function csvLines(rows: ReadonlyArray<readonly unknown[]>): string {
  return rows.length === 0 ? '' : stringify(rows.map((row) => row.map(cellText)), CSV_OPTIONS);
}

// csv-stringify quotes a field holding the record delimiter ('\r\n') but not a lone CR or LF: quoted_match does
const CSV_OPTIONS = { record_delimiter: '\r\n', quoted_match: /[\r\n]/ } as const;

// CSV as the reports and grid exports write it: RFC 4180 quoting, CRLF line ends, and cells that a spreadsheet
// would run as a formula (=, +, -, @, tab, CR first) prefixed with a quote.
export function csvCell(value: unknown): string {
  let text = value === undefined || value === null ? '' : String(value);
  // Spreadsheets run cells that start with these as formulas.
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A header line and one line per row of cell values. */
export function reportCsv(header: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  return [header.join(','), ...rows.map((row) => row.map(csvCell).join(','))].join('\r\n') + '\r\n';
}

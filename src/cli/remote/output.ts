// Output of the remote commands: on a terminal, tables with colour (cli-table3, picocolors); off a terminal,
// tab-separated lines with a header, which scripts cut and grep; or JSON with --output json.
import Table from 'cli-table3';
import colors from 'picocolors';

export type OutputFormat = 'table' | 'json' | 'plain';

/** --output as asked, else a table on a terminal and plain lines elsewhere. */
export function outputFormat(asked: string | undefined, allowed: string[] = ['table', 'json']): string {
  if (asked !== undefined && !allowed.includes(asked)) throw new Error(`--output must be one of ${allowed.join(', ')}`);
  return asked ?? (process.stdout.isTTY ? 'table' : 'plain');
}

const SEVERITY_COLOUR: Record<string, (s: string) => string> = {
  critical: (s) => colors.bold(colors.red(s)), high: colors.red, medium: colors.yellow, low: colors.blue, informational: colors.dim,
};

export function colourSeverity(severity: string): string {
  return (SEVERITY_COLOUR[severity] ?? ((s: string) => s))(severity);
}

/** Rows as a table (terminal) or tab-separated lines; `colour` styles a cell on a terminal. */
export function printRows(
  columns: string[], rows: Array<Array<string | number | undefined>>, format: string,
  colour: (column: string, value: string) => string = (_c, v) => v,
): void {
  if (format === 'table') {
    const table = new Table({ head: columns.map((c) => colors.bold(c)), style: { head: [], border: [] } });
    for (const row of rows) table.push(row.map((v, i) => colour(columns[i]!, v === undefined ? '' : String(v))));
    process.stdout.write(`${table.toString()}\n${colors.dim(`${rows.length} row${rows.length === 1 ? '' : 's'}`)}\n`);
    return;
  }
  const clean = (v: string | number | undefined) => (v === undefined ? '' : String(v).replace(/[\t\n]/g, ' '));
  process.stdout.write([columns.join('\t'), ...rows.map((r) => r.map(clean).join('\t'))].join('\n') + '\n');
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

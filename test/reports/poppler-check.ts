// Reads a PDF with Poppler's tools (pdfinfo, pdffonts, pdftotext, pdftoppm), with what each printed on standard
// error kept: Poppler reports a damaged or non-conforming file there ('Syntax Error: ...', 'Internal Error: ...')
// and goes on, so a test asserts that nothing was printed.
import { spawnSync } from 'node:child_process';

export interface PopplerReading {
  /** pdfinfo's page count. */
  pages: number;
  /** pdftotext -layout. */
  text: string;
  /** pdffonts' rows (no header). */
  fonts: string[];
  /** Each tool's complaint, as "tool: message". */
  messages: string[];
}

function run(tool: string, args: string[], messages: string[]): string {
  const r = spawnSync(tool, args, { encoding: 'latin1', maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  for (const line of r.stderr.split('\n').filter(Boolean)) messages.push(`${tool}: ${line}`);
  if (r.status !== 0) messages.push(`${tool}: exit code ${r.status}`);
  return r.stdout;
}

/** Runs pdfinfo, pdffonts, pdftotext and (when `pagesTo` is a path prefix) pdftoppm at 12 dpi in grey on the file. */
export function readWithPoppler(pdfPath: string, pagesTo?: string): PopplerReading {
  const messages: string[] = [];
  const info = run('pdfinfo', [pdfPath], messages);
  const fonts = run('pdffonts', [pdfPath], messages).split('\n').slice(2).filter(Boolean);
  const text = Buffer.from(run('pdftotext', ['-layout', '-enc', 'UTF-8', pdfPath, '-'], messages), 'latin1').toString('utf8');
  if (pagesTo) run('pdftoppm', ['-r', '12', '-gray', pdfPath, pagesTo], messages);
  return { pages: Number(/Pages:\s+(\d+)/.exec(info)?.[1] ?? 0), text, fonts, messages };
}

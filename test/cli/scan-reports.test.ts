// `firmscope scan -f findings-pdf` and `-f findings-html` (offline): the management reports of an image whose
// analysis is incomplete (a truncated gzip), written with -o; both say so on the cover and on the coverage page.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from 'vitest';
import { register } from '../../src/cli/scan.js';
import { readWithPoppler } from '../reports/poppler-check.js';
import { runCli, useCliFolder } from '../support/cli.js';
import { needCommands } from '../support/requirements.js';

const havePoppler = needCommands(['pdftotext', 'pdfinfo', 'pdffonts'], 'the offline findings PDF test');
const folder = useCliFolder('fs-cli-reports-');
let dir: string;
let image: string;
beforeEach(async () => {
  dir = folder();
  image = join(dir, 'broken.gz');
  await writeFile(image, gzipSync(randomBytes(100_000)).subarray(0, 60_000));
});

describe('firmscope scan, findings reports', () => {
  it('-f findings-html -o writes one self-contained HTML file with the incomplete-analysis banner twice', async () => {
    const out = join(dir, 'report.html');
    const run = await runCli(register, ['scan', image, '--no-vulndb', '-q', '-f', 'findings-html', '-o', out]);
    expect(run.exitCode).toBe(0);
    const html = await readFile(out, 'utf8');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).not.toMatch(/<(link|img|script)[^>]+(src|href)=/);
    expect(html.split('<strong>Analysis incomplete.</strong>').length - 1).toBe(2);
    expect(html).toContain('broken.gz at 0: gzip: truncated stream');
  });

  it.runIf(havePoppler)('-f findings-pdf -o writes the PDF, the banner on the cover and on the coverage page', async () => {
    const out = join(dir, 'report.pdf');
    const run = await runCli(register, ['scan', image, '--no-vulndb', '-q', '-f', 'findings-pdf', '-o', out]);
    expect(run.exitCode).toBe(0);
    const pdf = readWithPoppler(out);
    expect(pdf.messages).toEqual([]);
    const pages = pdf.text.split('\f');
    expect(pages[0]).toContain('ANALYSIS INCOMPLETE');
    const coverage = pages.find((p) => p.includes('What was analysed') && p.includes('Formats unpacked'))!;
    expect(coverage).toContain('ANALYSIS INCOMPLETE');
    expect(coverage).toContain('broken.gz at 0: gzip: truncated stream');
  });
});

// The CSV writer behind the findings report and the grid exports: RFC 4180 quoting (commas, quotes, CR and LF,
// alone or together), CRLF record ends, and formula neutralisation of cells a spreadsheet would run.
import { describe, expect, it } from 'vitest';
import { reportCsv } from '../../src/reports/csv.js';

describe('report CSV', () => {
  it('quotes cells holding a comma, a quote, a CR or an LF, and ends every record with CRLF', () => {
    expect(reportCsv(['a', 'b'], [['x,y', 'say "hi"'], ['line\nbreak', 'cr\ronly'], ['crlf\r\nin', 'plain']])).toBe(
      'a,b\r\n"x,y","say ""hi"""\r\n"line\nbreak","cr\ronly"\r\n"crlf\r\nin",plain\r\n',
    );
  });

  it('writes empty cells for null and undefined, and numbers and booleans as text', () => {
    expect(reportCsv(['a', 'b', 'c', 'd'], [[null, undefined, 7.5, false]])).toBe('a,b,c,d\r\n,,7.5,false\r\n');
    expect(reportCsv(['only'], [])).toBe('only\r\n');
  });

  it('prefixes a quote to cells starting with = + - @ tab or CR, and to nothing else', () => {
    expect(reportCsv(['v'], [['=SUM(A1)'], ['+1'], ['-1'], ['@cmd'], ['\tx'], [' =x'], ['a=b'], ["'x"]])).toBe(
      "v\r\n'=SUM(A1)\r\n'+1\r\n'-1\r\n'@cmd\r\n'\tx\r\n =x\r\na=b\r\n'x\r\n",
    );
    expect(reportCsv(['v'], [['\r=x']])).toBe(`v\r\n"'\r=x"\r\n`);
  });
});

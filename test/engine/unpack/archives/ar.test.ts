import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arHandler } from '../../../../src/engine/unpack/archives/ar.js';
import { compressibleBytes } from '../../../support/bytes.js';
import { expectTruncationsRefused, extractFiles, tempDir } from '../extract-harness.js';
import { tool } from '../handler-harness.js';

const LONG = 'a-member-name-longer-than-sixteen.o';
const MEMBERS: Record<string, Buffer> = { 'short.o': compressibleBytes(1001), [LONG]: Buffer.from('odd'), 'last.o': compressibleBytes(5000, 2) };

/** A GNU ar archive of MEMBERS made by binutils' ar (a '//' long-name table, then the members in order). */
function archive(): Buffer {
  const dir = tempDir();
  for (const [name, data] of Object.entries(MEMBERS)) writeFileSync(join(dir, name), data);
  tool('ar', ['rcS', 'lib.a', ...Object.keys(MEMBERS)], { cwd: dir });
  return tool('cat', [join(dir, 'lib.a')]);
}

/** Offset of the 60-byte header whose name field starts with `name`. */
const headerOf = (ar: Buffer, name: string) => ar.indexOf(Buffer.from(`\n${name}`, 'latin1')) + 1;

const problemText = (run: { problems: Array<{ message: string }> }) => run.problems.map((p) => p.message).join('; ');

describe('ar handler', () => {
  it('extracts members with GNU long names and ends after the last member', async () => {
    const ar = archive();
    const run = await extractFiles(arHandler, Buffer.concat([ar, Buffer.from('trailing garbage!')]));
    expect(run.chunk).toMatchObject({ start: 0, end: ar.length });
    expect(run.files).toEqual(MEMBERS);
    expect(run.problems).toEqual([]);
  });

  it('reports a truncated first member as a corrupt chunk', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'x.o'), compressibleBytes(5000));
    tool('ar', ['rcS', 'lib.a', 'x.o'], { cwd: dir });
    await expect(extractFiles(arHandler, tool('cat', [join(dir, 'lib.a')]).subarray(0, 3000))).rejects.toThrow(/runs past the end/);
  });

  it('keeps the members before a truncation, ends the chunk before the cut member and says why', async () => {
    const ar = archive();
    const last = headerOf(ar, 'last.o/');
    const run = await extractFiles(arHandler, ar.subarray(0, last + 60 + 2000));
    expect(run.chunk).toMatchObject({ start: 0, end: last, meta: { broken: 'member last.o/ runs past the end of the file' } });
    expect(run.files).toEqual({ 'short.o': MEMBERS['short.o'], [LONG]: MEMBERS[LONG] });
    expect(problemText(run)).toMatch(/archive breaks off \(member last\.o\/ runs past the end of the file\); the members before it were extracted/);
    await expectTruncationsRefused(arHandler, ar, (chunk, cut) => chunk.end <= cut.length);
  });

  it('ends at a member header whose size is corrupt, with the reason, and keeps the members before it', async () => {
    const ar = Buffer.from(archive());
    const last = headerOf(ar, 'last.o/');
    ar.write('12x4      ', last + 48, 'latin1');
    const run = await extractFiles(arHandler, ar);
    expect(run.chunk?.end).toBe(last);
    expect(Object.keys(run.files)).toEqual(['short.o', LONG]);
    expect(problemText(run)).toMatch(new RegExp(`archive breaks off \\(invalid member header at ${last}\\)`));
  });

  it('reports a long-name reference outside the table and a BSD name longer than its member, and extracts the rest', async () => {
    const ar = Buffer.from(archive());
    const long = ar.indexOf(Buffer.from('\n/0 ', 'latin1')) + 1;
    ar.write('/9999           ', long, 'latin1');
    ar.write('#1/99999        ', headerOf(ar, 'short.o/'), 'latin1');
    const run = await extractFiles(arHandler, ar);
    expect(run.chunk?.end).toBe(ar.length);
    expect(Object.keys(run.files)).toEqual(['last.o']);
    expect(run.files['last.o']).toEqual(MEMBERS['last.o']);
    expect(problemText(run)).toMatch(/BSD name of member at \d+ is longer than its member; member skipped/);
    expect(problemText(run)).toMatch(/refused entry: empty path/);
  });
});

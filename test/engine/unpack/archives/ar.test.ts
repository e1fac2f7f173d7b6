import { describe, expect, it } from 'vitest';
import { arHandler } from '../../../../src/engine/unpack/archives/ar.js';
import { compressibleBytes } from '../../../support/bytes.js';
import { extractFiles, tempDir } from '../extract-harness.js';
import { tool } from '../handler-harness.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

describe('ar handler', () => {
  it('extracts members with GNU long names and ends after the last member', async () => {
    const dir = tempDir();
    const long = 'a-member-name-longer-than-sixteen.o';
    writeFileSync(join(dir, 'short.o'), compressibleBytes(1001));
    writeFileSync(join(dir, long), Buffer.from('odd'));
    tool('ar', ['rcS', 'lib.a', 'short.o', long], { cwd: dir });
    const archive = tool('cat', [join(dir, 'lib.a')]);
    const run = await extractFiles(arHandler, Buffer.concat([archive, Buffer.from('trailing garbage!')]));
    expect(run.chunk).toMatchObject({ start: 0, end: archive.length });
    expect(run.files['short.o']).toEqual(compressibleBytes(1001));
    expect(run.files[long]?.toString()).toBe('odd');
  });

  it('reports a truncated member', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'x.o'), compressibleBytes(5000));
    tool('ar', ['rcS', 'lib.a', 'x.o'], { cwd: dir });
    await expect(extractFiles(arHandler, tool('cat', [join(dir, 'lib.a')]).subarray(0, 3000))).rejects.toThrow(/runs past the end/);
  });
});

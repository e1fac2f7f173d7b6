import { describe, expect, it } from 'vitest';
import { cpioHandler } from '../../../../src/engine/unpack/archives/cpio.js';
import { pseudoRandom } from '../../../support/bytes.js';
import { bombTree, expectBombStopped } from '../bomb-harness.js';
import { extractFiles, tempDir } from '../extract-harness.js';
import { tool } from '../handler-harness.js';
import { makeTree, TREE } from './archive-fixture.js';

function cpio(format: string): Buffer {
  return tool('sh', ['-c', `find root | sort | cpio -o -H ${format} 2>/dev/null`], { cwd: makeTree() });
}

describe('cpio handler', () => {
  for (const format of ['newc', 'crc', 'odc', 'bin']) {
    it(`extracts the ${format} format with modes and symlinks and ends after the trailer`, async () => {
      const archive = cpio(format);
      const run = await extractFiles(cpioHandler, Buffer.concat([pseudoRandom(64, 7), archive]), 64);
      // cpio pads the archive to 512 bytes after the trailer; the chunk ends at the trailer (+ alignment).
      expect(run.chunk!.end).toBeLessThanOrEqual(64 + archive.length);
      expect(archive.subarray(run.chunk!.end - 64).every((b) => b === 0)).toBe(true);
      expect(run.files['root/etc/passwd']).toEqual(TREE['etc/passwd']);
      expect(run.files['root/usr/bin/tool']).toEqual(TREE['usr/bin/tool']);
      expect(run.entries.find((e) => e.path === 'root/usr/bin/tool')?.meta.mode).toBe(0o755);
      expect(run.entries.find((e) => e.path === 'root/etc/tool-link')).toMatchObject({ kind: 'symlink', linkTarget: '../usr/bin/tool' });
      expect(run.entries.find((e) => e.path === 'root/var/empty')?.kind).toBe('directory');
    });
  }

  it('keeps the entries before a truncation, warns, and reports the truncated entry on its own', async () => {
    const archive = cpio('newc');
    const cut = archive.subarray(0, archive.indexOf('root/usr/bin/tool') + 1000);
    const run = await extractFiles(cpioHandler, cut);
    expect(run.files['root/etc/passwd']).toEqual(TREE['etc/passwd']);
    expect(run.files['root/usr/bin/tool']).toBeUndefined();
    expect(run.problems.map((p) => p.message).join()).toMatch(/breaks off \(data of root\/usr\/bin\/tool runs past the end/);
    // The truncated entry's own header, as the next candidate, is a corrupt chunk with a reason.
    await expect(extractFiles(cpioHandler, cut, run.chunk!.end)).rejects.toThrow(/runs past the end of the file/);
  });

  it('walks a damaged archive once, not once per entry', async () => {
    const archive = Buffer.from(cpio('newc'));
    archive.write('XXXXXX', archive.lastIndexOf('070701'), 'latin1'); // the trailer's header
    const run = await extractFiles(cpioHandler, archive);
    expect(run.files['root/usr/bin/tool']).toEqual(TREE['usr/bin/tool']);
    expect(run.problems.map((p) => p.message).join()).toMatch(/breaks off \(invalid header/);
  });

  it('refuses a name that escapes', async () => {
    const archive = Buffer.from(cpio('newc'));
    const at = archive.indexOf('root/etc/passwd');
    archive.write('../../etc/passw', at, 'latin1');
    const run = await extractFiles(cpioHandler, archive);
    expect(run.problems.map((p) => p.message).join()).toMatch(/escapes/);
    expect(run.files['root/usr/bin/tool']).toEqual(TREE['usr/bin/tool']);
  });

  it('stops a member far larger than the budget (a 64 MiB file of zeros) at a 1 MiB budget, in bounded memory', async () => {
    const dir = bombTree(tempDir(), { textMiB: 0 });
    tool('sh', ['-c', 'echo zeros | cpio -o -H newc > zeros.cpio 2>/dev/null'], { cwd: dir });
    await expectBombStopped(cpioHandler, `${dir}/zeros.cpio`, 1024 * 1024);
  });
});

import { describe, expect, it } from 'vitest';
import { zipHandler } from '../../../../src/engine/unpack/archives/zip.js';
import { LimitError } from '../../../../src/engine/unpack/handler.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileReader } from '../../../../src/engine/unpack/reader.js';
import { pseudoRandom } from '../../../support/bytes.js';
import { extractFiles, tempDir } from '../extract-harness.js';
import { tool } from '../handler-harness.js';
import { makeTree, TREE } from './archive-fixture.js';

describe('zip handler', () => {
  it('extracts deflated, stored and symlink entries of Info-ZIP output, carved between other bytes', async () => {
    const archive = tool('sh', ['-c', 'zip -qry out.zip root && cat out.zip'], { cwd: makeTree() });
    const run = await extractFiles(zipHandler, Buffer.concat([pseudoRandom(100, 7), archive, pseudoRandom(50, 7)]), 100);
    expect(run.chunk).toMatchObject({ start: 100, end: 100 + archive.length });
    expect(run.files['root/etc/passwd']).toEqual(TREE['etc/passwd']);
    expect(run.files['root/usr/bin/tool']).toEqual(TREE['usr/bin/tool']);
    expect(run.entries.find((e) => e.path === 'root/usr/bin/tool')?.meta.mode).toBe(0o755);
    expect(run.entries.find((e) => e.path === 'root/etc/tool-link')).toMatchObject({ kind: 'symlink', linkTarget: '../usr/bin/tool' });
    expect(run.problems).toEqual([]);
  });

  it('reads bzip2 entries (7z -mm=BZip2)', async () => {
    const dir = makeTree();
    tool('7z', ['a', '-tzip', '-mm=BZip2', '-bd', 'out.zip', 'root/usr/bin/tool'], { cwd: dir });
    const run = await extractFiles(zipHandler, tool('cat', [`${dir}/out.zip`]));
    expect(run.files['root/usr/bin/tool']).toEqual(TREE['usr/bin/tool']);
  });

  it('stops a zip bomb at the byte budget', async () => {
    const dir = tempDir();
    tool('sh', ['-c', 'head -c 20000000 /dev/zero > zeros && zip -q bomb.zip zeros'], { cwd: dir });
    const bomb = tool('cat', [`${dir}/bomb.zip`]);
    await expect(extractFiles(zipHandler, bomb, 0, { maxTotalBytes: 1_000_000 })).rejects.toBeInstanceOf(LimitError);
  });

  it('stops an entry whose declared size lies', async () => {
    const archive = Buffer.from(tool('zip', ['-qr', '-', 'root/usr/bin/tool'], { cwd: makeTree() }));
    const cd = archive.lastIndexOf(Buffer.from('PK\x01\x02', 'latin1'));
    archive.writeUInt32LE(1000, cd + 24); // uncompressed size in the central directory
    const run = await extractFiles(zipHandler, archive);
    expect(run.files['root/usr/bin/tool']).toBeUndefined();
    expect(run.problems.map((p) => p.message).join()).toMatch(/more than its declared 1000 bytes/);
  });

  it('searches for the directory once per file, not once per local header (no quadratic scan)', async () => {
    const header = Buffer.from('PK\x03\x04\x14\x00\x00\x00\x08\x00', 'latin1');
    const data = Buffer.concat(Array.from({ length: 4000 }, () => Buffer.concat([header, Buffer.alloc(1014, 0x41)])));
    const dir = tempDir();
    writeFileSync(join(dir, 'many.bin'), data);
    const reader = await FileReader.open(join(dir, 'many.bin'));
    const started = Date.now();
    for (let at = 0; at < data.length; at += 1024) expect(await zipHandler.chunk(reader, at)).toBeNull();
    await reader.close();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses a local header without a consistent end of central directory', async () => {
    const archive = tool('zip', ['-qr', '-', 'root'], { cwd: makeTree() });
    expect((await extractFiles(zipHandler, archive.subarray(0, archive.length - 30))).chunk).toBeNull();
  });
});

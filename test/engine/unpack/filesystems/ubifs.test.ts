import { appendFileSync, linkSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ubifsHandler } from '../../../../src/engine/unpack/filesystems/ubifs.js';
import { FormatError } from '../../../../src/engine/unpack/handler.js';
import { BufferReader } from '../../../../src/engine/unpack/reader.js';
import { cleanup, corrupt, entry, expectTree, extractWith, haveTool, noise, run, sampleTree, tempDir, writeTree, type SampleFile } from './fs-image-harness.js';

const enabled = haveTool('mkfs.ubifs');
const work = tempDir('ubifs');
const src = join(work, 'src');
let files: SampleFile[];

/** A bare UBIFS image (512-byte pages, 15 KiB LEBs: the smallest geometry mkfs.ubifs accepts). */
export function mkubifs(source: string, out: string, compression: string): string {
  run('mkfs.ubifs', ['-r', source, '-m', '512', '-e', '15360', '-c', '200', '-x', compression, '-D', join(work, 'devtable'), '-o', out]);
  return out;
}

beforeAll(() => {
  files = [
    ...sampleTree({ symlinks: true, longNames: true }),
    // A sparse file: UBIFS stores no data nodes for the hole.
    { path: 'sparse.bin', kind: 'file', content: Buffer.concat([noise(5000, 11), Buffer.alloc(40_000), Buffer.from('tail')]), mode: 0o644 },
  ];
  writeTree(src, files.filter((f) => f.path !== 'sparse.bin'), { modes: true });
  // Written as a real hole so the image has no data nodes for it.
  const sparse = join(src, 'sparse.bin');
  writeFileSync(sparse, noise(5000, 11));
  truncateSync(sparse, 45_000);
  appendFileSync(sparse, 'tail');
  linkSync(join(src, 'etc/passwd'), join(src, 'etc/passwd-'));
  writeFileSync(join(work, 'devtable'), '/dev d 755 0 0 - - - - -\n/dev/ttyS0 c 620 0 5 4 64 - - -\n');
});
afterAll(() => cleanup(work));

describe.runIf(enabled)('ubifs handler', () => {
  for (const compression of ['none', 'zlib', 'lzo', 'zstd']) {
    it(`extracts a ${compression}-compressed image with modes and symlinks`, async () => {
      const image = mkubifs(src, join(work, `${compression}.img`), compression);
      const ex = await extractWith(ubifsHandler, image);
      expect(ex.chunk).toMatchObject({ start: 0, end: readFileSync(image).length, meta: { lebSize: 15360 } });
      expectTree(ex, files, { modes: true });
      expect(entry(ex, 'etc/far')?.linkTarget).toBe('/' + 'x'.repeat(120) + '/target');
      expect(entry(ex, 'dev/ttyS0')).toMatchObject({ kind: 'device', meta: { mode: 0o620, gid: 5, meta: { major: 4, minor: 64 } } });
      const names = ['etc/passwd', 'etc/passwd-'].map((p) => entry(ex, p)?.kind).sort();
      expect(names).toEqual(['file', 'hardlink']);
      expect(ex.sink.problems).toEqual([]);
      cleanup(ex.root);
    });
  }

  it('ends a carved image after its last used LEB', async () => {
    const image = readFileSync(mkubifs(src, join(work, 'carve.img'), 'zlib'));
    const carved = Buffer.concat([noise(777, 1), image, Buffer.alloc(15360 * 3, 0xff), noise(20_000, 2)]);
    const ex = await extractWith(ubifsHandler, carved, 777);
    expect(ex.chunk).toMatchObject({ start: 777, end: 777 + image.length });
    expectTree(ex, files, { modes: true });
    cleanup(ex.root);
  });

  it('rejects other UBIFS nodes and garbage quietly', async () => {
    const image = readFileSync(mkubifs(src, join(work, 'q.img'), 'zlib'));
    // LEB 1 starts with a master node: same magic, not a superblock.
    expect(await ubifsHandler.chunk(new BufferReader(image), 15360)).toBeNull();
    expect(await ubifsHandler.chunk(new BufferReader(noise(8192, 2)), 0)).toBeNull();
  });

  it('reports corrupt and truncated images and keeps what it can read', async () => {
    const image = readFileSync(mkubifs(src, join(work, 'c.img'), 'zlib'));
    const cut = await extractWith(ubifsHandler, image.subarray(0, image.length - 3 * 15360));
    if (cut.error) expect(cut.error).toBeInstanceOf(FormatError);
    else expect(cut.sink.problems.length).toBeGreaterThan(0);
    cleanup(cut.root);
    for (let seed = 1; seed <= 12; seed++) {
      const ex = await extractWith(ubifsHandler, corrupt(image, 30, seed, 4096));
      if (ex.error) expect(ex.error).toBeInstanceOf(FormatError);
      cleanup(ex.root);
    }
    const badSb = Buffer.from(image);
    badSb[100] ^= 0xff;
    await expect(ubifsHandler.chunk(new BufferReader(badSb), 0)).rejects.toThrow(/CRC/);
  });
});

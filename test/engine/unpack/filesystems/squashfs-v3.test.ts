import { afterAll, describe, expect, it } from 'vitest';
import { squashfsV3Handler } from '../../../../src/engine/unpack/filesystems/squashfs/v3.js';
import { squashfsV4Handler } from '../../../../src/engine/unpack/filesystems/squashfs/v4.js';
import { FormatError } from '../../../../src/engine/format-error.js';
import { cleanup, expectCorruptionsRefused, extractWith, haveTool, noise, tempDir } from './fs-image-harness.js';
import { expect7zReadsTree, expectTree, routerTree } from './squashfs-tree.js';
import { writeSquashfsV3, type V3Codec } from './squashfs-v3-writer.js';

const work = tempDir('squashfs-v3');
afterAll(() => cleanup(work));

const have7z = haveTool('7z');

const entries = routerTree();

describe('squashfs-v3 handler', () => {
  const codecs: V3Codec[] = ['zlib', 'lzma-alone', 'lzma-props5', 'lzma-raw', 'mixed'];
  for (const endian of ['le', 'be'] as const) {
    for (const codec of codecs) {
      it(`extracts a ${endian === 'le' ? 'little' : 'big'}-endian image with ${codec} blocks`, async () => {
        const image = await writeSquashfsV3(entries, { endian, codec, lzmaMagic: codec === 'lzma-alone' && endian === 'be' });
        const used = Number(endian === 'le' ? image.readBigUInt64LE(63) : image.readBigUInt64BE(63));
        const ex = await extractWith(squashfsV3Handler, image);
        expect(ex.chunk).toMatchObject({ start: 0, end: used, meta: { version: '3.1', endian, blockSize: 4096, inodes: 58 } });
        expectTree(ex, entries);
        cleanup(ex.root);
      });
    }
  }

  it.runIf(have7z)('writes images that 7-Zip reads the same way (independent check of the test writer)', async () => {
    for (const endian of ['le', 'be'] as const) {
      expect7zReadsTree(work, `seven-${endian}`, await writeSquashfsV3(entries, { endian, codec: 'zlib' }), entries);
    }
  });

  it('leaves SquashFS 4 to its own handler and rejects junk quietly', async () => {
    const image = await writeSquashfsV3(entries, { endian: 'le', codec: 'zlib' });
    const asV4 = await extractWith(squashfsV4Handler, image);
    const junk = await extractWith(squashfsV3Handler, Buffer.concat([Buffer.from('sqsh'), noise(300, 4)]));
    expect([asV4.chunk, asV4.error, junk.chunk, junk.error]).toEqual([null, undefined, null, undefined]);
    cleanup(asV4.root, junk.root);
  });

  it('reports truncation and survives corrupted tables and blocks', async () => {
    const image = await writeSquashfsV3(entries, { endian: 'be', codec: 'mixed' });
    const used = Number(image.readBigUInt64BE(63));
    const cut = await extractWith(squashfsV3Handler, image.subarray(0, used - 50));
    expect(cut.error).toBeInstanceOf(FormatError);
    cleanup(cut.root);
    await expectCorruptionsRefused(squashfsV3Handler, image.subarray(0, used), 30, (seed) => 1 + (seed % 4), 119);
  }, 60_000);
});

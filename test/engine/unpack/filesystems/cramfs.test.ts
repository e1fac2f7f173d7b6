import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cramfsHandler } from '../../../../src/engine/unpack/filesystems/cramfs.js';
import { bombTree, expectBombStopped } from '../bomb-harness.js';
import { lzma } from '../../../../src/engine/unpack/codecs/blocks.js';
import { FormatError } from '../../../../src/engine/format-error.js';
import {
  cleanup,
  entry,
  expectCorruptionsRefused,
  expectTree,
  extractWith,
  imageWorkspace,
  makeDeviceNodes,
  noise,
  run,
  type SampleFile,
  sampleTree,
  writeTree,
} from './fs-image-harness.js';

const { enabled, work, src } = imageWorkspace('cramfs', 'mkfs.cramfs');
let files: SampleFile[];
let haveNodes = false;

function mkcramfs(name: string, args: string[] = []): string {
  const image = join(work, name);
  run('mkfs.cramfs', [...args, src, image]);
  return image;
}

beforeAll(() => {
  files = [
    ...sampleTree({ symlinks: true, longNames: true }),
    // A 40 KiB run of zeros: with -z it is stored as holes.
    { path: 'holes.bin', kind: 'file', content: Buffer.concat([noise(5000, 3), Buffer.alloc(40_960), noise(100, 4)]), mode: 0o644 },
    { path: 'dev', kind: 'directory', mode: 0o755 },
  ];
  writeTree(src, files, { modes: true });
  // Device nodes and fifos need privileges; without them those checks are skipped.
  haveNodes = makeDeviceNodes(join(src, 'dev'), 'cramfs');
});

/** A little-endian CramFS with one regular file "a" whose single block is `block`. */
function handBuilt(size: number, block: Buffer): Buffer {
  const dataAt = 76 + 12 + 4;
  const blockAt = dataAt + 4;
  const total = Math.ceil((blockAt + block.length) / 4) * 4;
  const image = Buffer.alloc(total);
  image.writeUInt32LE(0x28cd3d45, 0);
  image.writeUInt32LE(total, 4);
  image.writeUInt32LE(3, 8); // FSID version 2, sorted directories
  image.write('Compressed ROMFS', 16, 'latin1');
  image.writeUInt32LE(1, 40); // blocks
  image.writeUInt32LE(2, 44); // files
  image.write('handbuilt', 48, 'latin1');
  const inode = (at: number, mode: number, length: number, nameWords: number, offset: number) => {
    image.writeUInt16LE(mode, at);
    image.writeUInt32LE(length & 0xffffff, at + 4);
    image.writeUInt32LE(nameWords | ((offset / 4) << 6), at + 8);
  };
  inode(64, 0o40755, 16, 0, 76);
  inode(76, 0o100644, size, 1, dataAt);
  image.write('a', 88, 'latin1');
  image.writeUInt32LE(blockAt + block.length, dataAt);
  block.copy(image, blockAt);
  return image;
}

describe.runIf(enabled)('cramfs handler', () => {
  it('stops a bomb (16 MiB of zeros stored as holes, 16 MiB of text, in 256 KiB) at a 1 MiB budget, in bounded memory', async () => {
    const image = join(work, 'bomb.cramfs');
    // cramfs files are at most 16 MiB - 1 byte.
    run('mkfs.cramfs', ['-z', bombTree(join(work, 'bomb'), { zerosMiB: 16, textMiB: 16 }), image]);
    await expectBombStopped(cramfsHandler, image, 1024 * 1024);
  });

  for (const endian of ['little', 'big']) {
    it(`extracts a ${endian}-endian image: contents, modes, symlinks, devices, and the exact end`, async () => {
      const image = mkcramfs(`${endian}.cramfs`, ['-N', endian, '-n', 'volname']);
      const data = readFileSync(image);
      const carved = join(work, `${endian}-carved.bin`);
      writeFileSync(carved, Buffer.concat([noise(300, 1), data, Buffer.alloc(1000, 0xff)]));
      const ex = await extractWith(cramfsHandler, carved, 300);
      expect(ex.chunk).toMatchObject({ start: 300, end: 300 + data.length, meta: { endian: endian === 'little' ? 'le' : 'be', name: 'volname' } });
      expectTree(ex, files, { modes: true });
      if (haveNodes) {
        expect(entry(ex, 'dev/null')).toMatchObject({ kind: 'device', meta: { meta: { rdev: (1 << 8) | 3 } } });
        expect(entry(ex, 'dev/fifo')?.kind).toBe('fifo');
      }
      expect(ex.sink.problems).toEqual([]);
      cleanup(ex.root);
    });
  }

  it('extracts explicit holes (-z) and 16 KiB blocks (-b)', async () => {
    for (const args of [['-z'], ['-b', '16384']]) {
      const ex = await extractWith(cramfsHandler, mkcramfs(`opt${args[0]}.cramfs`, args));
      expectTree(ex, files, { modes: true });
      cleanup(ex.root);
    }
  });

  it('decodes vendor LZMA-alone, LZMA props+raw and xz blocks (hand-built image, one file)', async () => {
    const content = Buffer.from('vendor cramfs block\n'.repeat(100));
    const alone = await new Promise<Buffer>((resolve, reject) => {
      const parts: Buffer[] = [];
      const enc = lzma().createStream('aloneEncoder', { preset: 1 });
      enc.on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve(Buffer.concat(parts))).on('error', reject);
      enc.end(content);
    });
    const blocks = {
      'lzma-alone': alone,
      'lzma-props5': Buffer.concat([alone.subarray(0, 5), alone.subarray(13)]),
      xz: await lzma().compress(content, { preset: 1 }),
    };
    for (const [name, block] of Object.entries(blocks)) {
      const ex = await extractWith(cramfsHandler, handBuilt(content.length, block));
      expect(ex.error, name).toBeUndefined();
      expect(ex.sink.problems, name).toEqual([]);
      expect(readFileSync(join(ex.root, 'a')).equals(content), name).toBe(true);
      cleanup(ex.root);
    }
  });

  it('rejects false positives quietly, truncation with a reason, and survives corruption', async () => {
    const data = readFileSync(mkcramfs('fuzz.cramfs'));
    const fake = Buffer.concat([Buffer.from([0x45, 0x3d, 0xcd, 0x28]), noise(100, 5)]);
    const quiet = await extractWith(cramfsHandler, fake);
    expect([quiet.chunk, quiet.error]).toEqual([null, undefined]);
    const cut = await extractWith(cramfsHandler, data.subarray(0, data.length - 10));
    expect(cut.error).toBeInstanceOf(FormatError);
    cleanup(quiet.root, cut.root);
    await expectCorruptionsRefused(cramfsHandler, data, 60, (seed) => 1 + (seed % 4), 16);
  }, 60_000);

  it('reports a directory that contains itself', async () => {
    const data = Buffer.from(readFileSync(mkcramfs('loop.cramfs')));
    // Find "bin" in the root listing (12-byte inodes + names) and point its children at the root's.
    const rootWord = data.readUInt32LE(64 + 8);
    let binAt = 76;
    while (data.subarray(binAt + 12, binAt + 16).toString('latin1') !== 'bin\0') binAt += 12 + (data.readUInt32LE(binAt + 8) & 0x3f) * 4;
    data.writeUInt32LE(((rootWord >>> 6) << 6) | (data.readUInt32LE(binAt + 8) & 0x3f), binAt + 8);
    const ex = await extractWith(cramfsHandler, data);
    expect(ex.error).toBeUndefined();
    expect(ex.sink.problems.some((p) => /loop/.test(p.message))).toBe(true);
    expect(entry(ex, 'etc/passwd')?.kind).toBe('file');
    cleanup(ex.root);
  });
});
